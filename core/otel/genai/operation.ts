/**
 * Which GenAI operation a span is (docs/otel.md "What is mapped"), read the way each SDK exports
 * it: the Vercel AI SDK's `ai.operationId` first (its spans carry `gen_ai.system` and the usage,
 * never the operation name, and a processor that adds one may call its `ai.generateText` a `chat`
 * too: Traceloop's writes `chat` for any span named after generateText); else the conventions'
 * `gen_ai.operation.name`; else a span name of
 * the conventions' `{gen_ai.operation.name} {gen_ai.request.model}` form (`chat gpt-4o-mini`, as
 * Traceloop OpenLLMetry names spans) or an SDK's `<provider>.<operation>` (`openai.chat`); else
 * OpenLLMetry's `llm.request.type`.
 */

type Attributes = Readonly<Record<string, unknown>>;

/** The operations the conventions define that Hivewatch reads. */
export const MODEL_CALLS = new Set(['chat', 'text_completion', 'generate_content', 'embeddings']);
const CONVENTION_OPERATIONS = new Set([...MODEL_CALLS, 'execute_tool', 'invoke_agent', 'create_agent', 'invoke_workflow']);

/**
 * An SDK's own call around its model calls and tool calls (the AI SDK's `ai.generateText`): its
 * status is the app's verdict on them, like an `invoke_agent` span's, but it is no agent and opens
 * no task of its own (its model calls may reach the receiver in an earlier payload than it does).
 */
export const SDK_CALL = 'sdk_call';

export interface GenAiOperation {
  /** A convention's operation name, `sdk_call`, or what the span named (not text: kept as given, genai/fact.ts says why it is not read). */
  value: unknown;
  /** Where it was read. */
  from: 'gen_ai.operation.name' | 'ai.operationId' | 'span name' | 'llm.request.type' | 'none';
}

const own = (attrs: Attributes, key: string): unknown => (Object.prototype.hasOwnProperty.call(attrs, key) ? attrs[key] : undefined);

/** The AI SDK's operation ids (its "Telemetry" docs, `ai` 6): the provider calls, the tool call, and the calls around them. */
function fromAiSdk(operationId: string): string | null {
  if (operationId === 'ai.toolCall') return 'execute_tool';
  if (/^ai\.(?:generateText|streamText|generateObject|streamObject)\.(?:doGenerate|doStream)$/.test(operationId)) return 'chat';
  if (/^ai\.(?:embed|embedMany)\.doEmbed$/.test(operationId)) return 'embeddings';
  if (/^ai\.(?:generateText|streamText|generateObject|streamObject|embed|embedMany)$/.test(operationId)) return SDK_CALL;
  return null;
}

const LEGACY: Readonly<Record<string, string>> = {
  chat: 'chat',
  completion: 'text_completion',
  completions: 'text_completion',
  embedding: 'embeddings',
  embeddings: 'embeddings',
};

/** `chat gpt-4o-mini`, `execute_tool get_weather`, `invoke_agent`; `openai.chat`, `anthropic.completion`. */
function fromSpanName(name: string): string | null {
  const first = name.split(' ', 1)[0] ?? '';
  if (CONVENTION_OPERATIONS.has(first)) return first;
  const dotted = /^[a-z0-9_-]+\.(chat|completions?|embeddings?)$/.exec(name);
  return dotted ? (LEGACY[dotted[1] as string] ?? null) : null;
}

export function genAiOperationOf(spanName: string, attrs: Attributes): GenAiOperation {
  const operationId = own(attrs, 'ai.operationId');
  const sdk = typeof operationId === 'string' ? fromAiSdk(operationId) : null;
  if (sdk !== null) return { value: sdk, from: 'ai.operationId' };
  const named = own(attrs, 'gen_ai.operation.name');
  if (named !== undefined) return { value: named, from: 'gen_ai.operation.name' };
  const byName = fromSpanName(spanName);
  if (byName !== null) return { value: byName, from: 'span name' };
  const requestType = own(attrs, 'llm.request.type');
  const legacy = typeof requestType === 'string' ? (LEGACY[requestType] ?? null) : null;
  if (legacy !== null) return { value: legacy, from: 'llm.request.type' };
  return { value: undefined, from: 'none' };
}

/** Whether a span is an agent's (an `invoke_agent`, however it says so): it opens the task of every span under it. */
export function isAgentSpan(spanName: string, attrs: Attributes): boolean {
  return genAiOperationOf(spanName, attrs).value === 'invoke_agent';
}

/** Whether a span's status is a verdict on the spans under it: an agent's, or an SDK's call around its model calls. */
export function isVerdictSpan(spanName: string, attrs: Attributes): boolean {
  const { value } = genAiOperationOf(spanName, attrs);
  return value === 'invoke_agent' || value === SDK_CALL;
}
