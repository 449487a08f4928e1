/**
 * What Hivewatch keeps of a telemetry record's attributes, per scheme (docs/otel.md "Content:
 * what is kept"): ids, model, tokens, cost, status, error type and message, tool name, durations
 * and the like. Everything else is dropped before the journal, whatever it holds: an allow-list,
 * so an attribute a scheme adds tomorrow (or a new way to carry a prompt) is not kept until it
 * is named here. No entry holds message, prompt, response, tool-argument or tool-result text.
 *
 * An entry is an exact key, or a family ending in `.*` whose values must be numbers (token
 * counts, costs: a number cannot carry text).
 */

export interface Scheme {
  name: string;
  /** Exact keys kept with any value. */
  keys: readonly string[];
  /** Key prefixes (`gen_ai.usage.`) kept only with a number value. */
  numericFamilies?: readonly string[];
  /** The user's prompt text: kept only when the operator turns `otel.store_prompts` on. */
  promptKeys?: readonly string[];
}

/** Kept in every scheme: the ids that tie a record to a session and to a Hivewatch attempt. */
export const COMMON: Scheme = {
  name: 'common',
  keys: ['session.id', 'conversation.id', 'event.name', 'event.timestamp', 'event.sequence', 'hivewatch.run_id', 'hivewatch.task_id', 'hivewatch.attempt'],
};

/** Claude Code's log events and span events (https://code.claude.com/docs/en/monitoring-usage; the 2.1.332 recordings). */
export const CLAUDE_CODE: Scheme = {
  name: 'claude-code',
  keys: [
    'prompt.id',
    'app.version',
    'terminal.type',
    'message.uuid',
    'request_id',
    'client_request_id',
    'workflow.run_id',
    'workflow.name',
    'query_source',
    'query_source_safe',
    'model',
    'effort',
    'speed',
    'anthropic.provider',
    'anthropic.custom_base_url',
    'prompt_length',
    'user_prompt_length',
    'response_length',
    'cost_usd',
    'cost_usd_micros',
    'duration_ms',
    'ttft_ms',
    'first_content_ms',
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_creation_tokens',
    'cache_creation_1h_tokens',
    'cache_creation_5m_tokens',
    'error',
    'error_class',
    'status_code',
    'attempt',
    'success',
    'stop_reason',
    'total_attempts',
    'total_retry_duration_ms',
    'tool_name',
    'tool_name_safe',
    'tool_use_id',
    'tool_source',
    'tool_input_size_bytes',
    'tool_result_size_bytes',
    'decision',
    'decision_type',
    'decision_source',
    'source',
    'permission_mode',
    'span.type',
    'llm_request.context',
    'interaction.sequence',
    'interaction.duration_ms',
    'body_length',
    // Hooks, compaction, refusals, internal errors, MCP servers (names and counts; never a hook's command or output).
    'hook_event',
    'hook_name',
    'hook_source',
    'num_hooks',
    'num_success',
    'num_blocking',
    'num_non_blocking_error',
    'num_cancelled',
    'total_duration_ms',
    'trigger',
    'pre_tokens',
    'post_tokens',
    'category',
    'error_name',
    'error_code',
    'status',
    'server_name',
    'transport_type',
    'server_scope',
  ],
  promptKeys: ['prompt', 'prompt_text', 'user_prompt'],
};

/** Codex's events (openai/codex docs/config.md `[otel]`, its event catalog; the 0.169.0 recordings). */
export const CODEX_CLI: Scheme = {
  name: 'codex-cli',
  keys: [
    'app.version',
    'auth_mode',
    'auth.mode',
    'auth.outcome',
    'auth.step',
    'auth.recovery_reason',
    'auth.request_id',
    'terminal.type',
    'originator',
    'model',
    'slug',
    'provider_name',
    'reasoning_effort',
    'model_reasoning_effort',
    'approval_policy',
    'sandbox_policy',
    'endpoint',
    'event.kind',
    'attempt',
    'duration_ms',
    'ttft_ms',
    'http.response.status_code',
    'error.message',
    'input_token_count',
    'output_token_count',
    'cached_token_count',
    'cache_write_token_count',
    'reasoning_token_count',
    'tool_token_count',
    'prompt_length',
    'tool_name',
    'tool_namespace',
    'call_id',
    'decision',
    'source',
    'success',
    'output_truncated',
    'tool_result_seq',
    'mcp_server',
    'startup.phase',
    'startup.status',
    'retry.attempt',
    'retry.delay_ms',
    'retry.layer',
    'retry.operation',
    'turn_id',
    'turn.id',
    'sampling_request_count',
    'sampling_retry_count',
    // Its threads (0.171.0): which thread spawned which (`codex.agent_communication`, never its `content`),
    // and the metric point of a spawned thread (its source and count).
    'kind',
    'state',
    'communication_id',
    'sender_thread_id',
    'receiver_thread_id',
    'session_source',
    'metric.value',
  ],
  promptKeys: ['prompt'],
};

/**
 * The OpenTelemetry GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/):
 * every attribute of the registry but the content ones (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`, `gen_ai.tool.definitions`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`,
 * the deprecated `gen_ai.prompt` / `gen_ai.completion`) and the free-form descriptions an app writes
 * (`gen_ai.agent.description`, `gen_ai.tool.description`, `gen_ai.evaluation.explanation`); with them the
 * error and exception attributes (https://opentelemetry.io/docs/specs/semconv/registry/attributes/error/,
 * …/exception/) and the server the call went to.
 */
export const GENAI: Scheme = {
  name: 'genai',
  keys: [
    'gen_ai.operation.name',
    'gen_ai.provider.name',
    'gen_ai.system',
    'gen_ai.conversation.id',
    'gen_ai.data_source.id',
    'gen_ai.agent.id',
    'gen_ai.agent.name',
    'gen_ai.agent.version',
    'gen_ai.workflow.name',
    'gen_ai.request.model',
    'gen_ai.request.max_tokens',
    'gen_ai.request.temperature',
    'gen_ai.request.top_p',
    'gen_ai.request.top_k',
    'gen_ai.request.frequency_penalty',
    'gen_ai.request.presence_penalty',
    'gen_ai.request.seed',
    'gen_ai.request.choice.count',
    'gen_ai.request.encoding_formats',
    'gen_ai.output.type',
    'gen_ai.embeddings.dimension.count',
    'gen_ai.token.type',
    'gen_ai.response.id',
    'gen_ai.response.model',
    'gen_ai.response.finish_reasons',
    'gen_ai.tool.name',
    'gen_ai.tool.call.id',
    'gen_ai.tool.type',
    'gen_ai.evaluation.name',
    'gen_ai.evaluation.score.label',
    'gen_ai.evaluation.score.value',
    'error.type',
    'exception.type',
    'exception.message',
    'exception.escaped',
    'server.address',
    'server.port',
    'http.response.status_code',
    'gen_ai.openai.request.service_tier',
    'gen_ai.openai.response.service_tier',
    'gen_ai.openai.response.system_fingerprint',
  ],
  numericFamilies: ['gen_ai.usage.'],
};

/**
 * The Vercel AI SDK's `ai.*` attributes (its "Telemetry" docs, `ai` 6: docs/03-ai-sdk-core/60-telemetry.mdx in
 * the package): not `ai.prompt`, `ai.prompt.messages`, `ai.prompt.tools`, `ai.prompt.toolChoice`,
 * `ai.response.text`, `ai.response.reasoning`, `ai.response.toolCalls`, `ai.response.object`,
 * `ai.response.providerMetadata`, `ai.toolCall.args`, `ai.toolCall.result`, `ai.value(s)`, `ai.embedding(s)`,
 * `ai.schema*`, `ai.request.headers.*` (an app's headers), `ai.telemetry.metadata.*` (an app's free-form values).
 */
export const AI_SDK: Scheme = {
  name: 'ai-sdk',
  keys: [
    'ai.operationId',
    'operation.name',
    'resource.name',
    'ai.telemetry.functionId',
    'ai.sdk.version',
    'ai.model.id',
    'ai.model.provider',
    'ai.settings.maxRetries',
    'ai.settings.maxOutputTokens',
    'ai.settings.temperature',
    'ai.response.id',
    'ai.response.model',
    'ai.response.timestamp',
    'ai.response.finishReason',
    'ai.response.msToFirstChunk',
    'ai.response.msToFinish',
    'ai.response.avgOutputTokensPerSecond',
    'ai.response.avgCompletionTokensPerSecond',
    'ai.toolCall.name',
    'ai.toolCall.id',
  ],
  numericFamilies: ['ai.usage.'],
};

/**
 * Arize OpenInference (https://github.com/Arize-ai/openinference, `spec/semantic_conventions.md`): not
 * `input.value`, `output.value`, `llm.input_messages.*`, `llm.output_messages.*`, `llm.prompts`,
 * `llm.prompt_template.*`, `llm.tools.*`, `llm.invocation_parameters`, `tool.parameters`, `tool.description`,
 * `tool_call.function.arguments`, `retrieval.documents.*`, `embedding.embeddings.*`, `reranker.*`, `message.*`,
 * `user.id`, `metadata`, `tag.tags`.
 */
export const OPENINFERENCE: Scheme = {
  name: 'openinference',
  keys: [
    'openinference.span.kind',
    'llm.model_name',
    'llm.provider',
    'llm.system',
    'llm.finish_reason',
    'input.mime_type',
    'output.mime_type',
    'tool.name',
    'tool.id',
    'tool_call.id',
    'tool_call.function.name',
    'agent.name',
    'graph.node.id',
    'graph.node.name',
    'graph.node.parent_id',
    'embedding.model_name',
    'reranker.model_name',
  ],
  numericFamilies: ['llm.token_count.', 'llm.cost.'],
};

/**
 * Traceloop OpenLLMetry (https://github.com/traceloop/openllmetry-js, `@traceloop/ai-semantic-conventions`):
 * the GenAI attributes above, and of its own not `gen_ai.prompt.N.*`, `gen_ai.completion.N.*`,
 * `llm.request.functions.*`, `traceloop.entity.input` / `.output`, `traceloop.association.properties.*`, `llm.headers`.
 */
export const OPENLLMETRY: Scheme = {
  name: 'openllmetry',
  keys: [
    'llm.request.type',
    'llm.is_streaming',
    'llm.response.finish_reason',
    'llm.response.stop_reason',
    'traceloop.span.kind',
    'traceloop.entity.name',
    'traceloop.entity.path',
    'traceloop.workflow.name',
    'traceloop.entity.version',
  ],
  numericFamilies: ['llm.usage.', 'gen_ai.usage.'],
};
