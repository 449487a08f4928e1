import { HANG, jsonAnswer, sseAnswer, sseFrame, startProviderStub, type Answer, type ProviderStub } from './provider-stub.js';

/**
 * A local Anthropic Messages API (`POST /v1/messages`) answering from a script, in the wire
 * formats the API documents (docs/real-agents.md cites them):
 * - streaming (`"stream": true`): server-sent events `message_start`, `content_block_start`,
 *   `ping`, `content_block_delta` (`text_delta`, or `input_json_delta` for a tool's input),
 *   `content_block_stop`, `message_delta` (stop reason, output tokens), `message_stop`; an
 *   `error` event inside a 200 stream;
 * - non-streaming: one `message` object;
 * - errors: `{"type":"error","error":{"type","message"},"request_id"}` with the HTTP status, a
 *   `request-id` header, and `retry-after` (seconds) on a 429 as the API sends it.
 * A usage limit is a 429 with the `anthropic-ratelimit-unified-*` headers Claude Code reads for a
 * subscription (status `rejected`, `reset` in epoch seconds, the representative claim).
 */

export type AnthropicStep =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string; input: Record<string, unknown> }
  | { kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string> }
  | { kind: 'stream-error'; type: string; message: string }
  | { kind: 'hang' }
  | { kind: 'stall' }
  | { kind: 'by-conversation'; conversations: readonly Conversation[] };

/**
 * One agent's conversation (the session's, or a subagent's) for `anthropic.byConversation`: told
 * apart by the text its first user message opens with; its n-th request (n = the assistant turns
 * it already holds) gets its n-th step, the last repeating.
 */
export interface Conversation {
  opensWith: string;
  steps: readonly AnthropicStep[];
}

export const anthropic = {
  text: (text = 'Hello from the Anthropic stub.'): AnthropicStep => ({ kind: 'text', text }),
  tool: (name: string, input: Record<string, unknown>): AnthropicStep => ({ kind: 'tool', name, input }),
  rateLimited: (retryAfterSeconds = 1): AnthropicStep => ({
    kind: 'error',
    status: 429,
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit',
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
  overloaded: (): AnthropicStep => ({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' }),
  serverError: (): AnthropicStep => ({ kind: 'error', status: 500, type: 'api_error', message: 'Internal server error' }),
  unauthorized: (): AnthropicStep => ({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }),
  forbidden: (): AnthropicStep => ({
    kind: 'error',
    status: 403,
    type: 'permission_error',
    message: 'Your API key does not have permission to use the specified resource.',
  }),
  /** A subscription's usage limit (its five-hour or weekly window), resetting at `resetEpochSeconds`. */
  usageLimit: (resetEpochSeconds: number, claim: 'five_hour' | 'seven_day' = 'five_hour'): AnthropicStep => ({
    kind: 'error',
    status: 429,
    type: 'rate_limit_error',
    message: "This request would exceed your account's rate limit.",
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetEpochSeconds),
      'anthropic-ratelimit-unified-representative-claim': claim,
    },
  }),
  /** A 200 stream that carries an `error` event after `message_start` (overloaded mid-stream). */
  streamError: (): AnthropicStep => ({ kind: 'stream-error', type: 'overloaded_error', message: 'Overloaded' }),
  hang: (): AnthropicStep => ({ kind: 'hang' }),
  stall: (): AnthropicStep => ({ kind: 'stall' }),
  /**
   * Answers each agent from its own script. Claude Code runs subagents in the background since
   * 2.1 (the Agent tool returns "Async agent launched" at once), so a session's and its
   * subagents' requests interleave in no fixed order: a single positional script cannot say
   * which agent gets what; the request's own messages can.
   */
  byConversation: (conversations: readonly Conversation[]): AnthropicStep => ({ kind: 'by-conversation', conversations }),
};

/** The texts of a message's content (a string, or its text blocks). */
function textsOf(message: unknown): string[] {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => (typeof (block as { text?: unknown }).text === 'string' ? [(block as { text: string }).text] : []));
}

/** The step of the conversation this request belongs to, or null when none opens its messages. */
function conversationStep(conversations: readonly Conversation[], body: Record<string, unknown>): AnthropicStep | null {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const opening = textsOf(messages[0]).map((t) => t.trim());
  const conversation = conversations.find((c) => opening.some((t) => t.startsWith(c.opensWith)));
  if (!conversation) return null;
  const turns = messages.filter((m) => (m as { role?: unknown }).role === 'assistant').length;
  return conversation.steps[Math.min(turns, conversation.steps.length - 1)] ?? null;
}

const REQUEST_ID = 'req_stub_0001';

function message(model: unknown, content: unknown[], stopReason: string | null, outputTokens: number): Record<string, unknown> {
  return {
    id: 'msg_stub_0001',
    type: 'message',
    role: 'assistant',
    model: typeof model === 'string' ? model : 'claude-stub',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function contentOf(step: AnthropicStep): Record<string, unknown>[] {
  if (step.kind === 'text') return [{ type: 'text', text: step.text }];
  if (step.kind === 'tool') return [{ type: 'tool_use', id: 'toolu_stub_0001', name: step.name, input: step.input }];
  return [];
}

/** The stream of one content block: text as one delta, a tool's input JSON in two pieces. */
function blockFrames(step: AnthropicStep): string[] {
  if (step.kind === 'text') {
    return [
      sseFrame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sseFrame('ping', { type: 'ping' }),
      sseFrame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: step.text } }),
      sseFrame('content_block_stop', { type: 'content_block_stop', index: 0 }),
    ];
  }
  if (step.kind !== 'tool') return [];
  const json = JSON.stringify(step.input);
  const half = Math.ceil(json.length / 2);
  const start = { type: 'tool_use', id: 'toolu_stub_0001', name: step.name, input: {} };
  return [
    sseFrame('content_block_start', { type: 'content_block_start', index: 0, content_block: start }),
    sseFrame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } }),
    sseFrame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(half) } }),
    sseFrame('content_block_stop', { type: 'content_block_stop', index: 0 }),
  ];
}

function answerAnthropic(scripted: AnthropicStep, request: { body: Record<string, unknown>; stream: boolean | null }): Answer {
  const model = request.body.model;
  const headers = { 'request-id': REQUEST_ID };
  const step = scripted.kind === 'by-conversation' ? conversationStep(scripted.conversations, request.body) : scripted;
  // A request of no scripted conversation is refused in the API's own terms, and recorded as such.
  if (step === null)
    return jsonAnswer(
      'unscripted',
      400,
      { type: 'error', error: { type: 'invalid_request_error', message: 'the stub has no script for this conversation' }, request_id: REQUEST_ID },
      headers,
    );
  switch (step.kind) {
    case 'hang':
      return HANG;
    case 'error':
      return jsonAnswer(
        `error ${step.status}`,
        step.status,
        { type: 'error', error: { type: step.type, message: step.message }, request_id: REQUEST_ID },
        { ...headers, ...step.headers },
      );
    default:
      break;
  }
  const start = sseFrame('message_start', { type: 'message_start', message: message(model, [], null, 1) });
  if (step.kind === 'stall') {
    // Non-streaming: the status and headers, then no body. Streaming: message_start, then nothing.
    if (request.stream !== true) return { label: 'stall', write: (res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }) };
    return sseAnswer('stall', [start], { open: true, headers });
  }
  if (step.kind === 'stream-error') {
    const error = sseFrame('error', { type: 'error', error: { type: step.type, message: step.message } });
    return request.stream === true
      ? sseAnswer('stream-error', [start, error], { headers })
      : jsonAnswer('error 529', 529, { type: 'error', error: { type: step.type, message: step.message } }, headers);
  }
  const stopReason = step.kind === 'tool' ? 'tool_use' : 'end_turn';
  if (request.stream !== true) return jsonAnswer(step.kind, 200, message(model, contentOf(step), stopReason, 9), headers);
  return sseAnswer(
    step.kind,
    [
      start,
      ...blockFrames(step),
      sseFrame('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 9 } }),
      sseFrame('message_stop', { type: 'message_stop' }),
    ],
    { headers },
  );
}

export function startAnthropicStub(steps: readonly AnthropicStep[]): Promise<ProviderStub> {
  return startProviderStub({ apiPath: '/v1/messages', steps, answer: answerAnthropic });
}
