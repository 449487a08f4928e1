import { HANG, jsonAnswer, sseAnswer, sseFrame, startProviderStub, type Answer, type ProviderStub, type StubLanes } from './provider-stub.js';

/**
 * A local OpenAI Responses API (`POST /v1/responses`) answering from a script, in the formats
 * the API reference documents (docs/real-agents.md cites them): streaming events
 * `response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta` / `.done`,
 * `response.content_part.done`, `response.function_call_arguments.delta` / `.done`,
 * `response.output_item.done`, `response.completed` (with `usage`) and `response.failed`, each
 * with a `sequence_number`; errors as `{"error":{"message","type","param","code"}}` with the HTTP
 * status and `retry-after` on a 429. A ChatGPT plan's usage limit is the 429 body Codex reads:
 * `{"error":{"type":"usage_limit_reached","plan_type","resets_at","resets_in_seconds"}}`.
 */

export type OpenAiStep =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string; args: Record<string, unknown>; namespace?: string }
  | { kind: 'error'; status: number; error: Record<string, unknown>; headers?: Record<string, string> }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'hang' }
  | { kind: 'stall' };

const apiError = (message: string, type: string, code: string | null): Record<string, unknown> => ({ message, type, param: null, code });

export const openai = {
  text: (text = 'Hello from the OpenAI stub.'): OpenAiStep => ({ kind: 'text', text }),
  /** A function call; `namespace` for a tool Codex lists in a namespace of its `additional_tools` (`collaboration`). */
  tool: (name: string, args: Record<string, unknown>, namespace?: string): OpenAiStep => ({ kind: 'tool', name, args, ...(namespace ? { namespace } : {}) }),
  rateLimited: (retryAfterSeconds = 1): OpenAiStep => ({
    kind: 'error',
    status: 429,
    error: apiError('Rate limit reached for requests per min. Please try again in 1s.', 'requests', 'rate_limit_exceeded'),
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
  overloaded: (): OpenAiStep => ({ kind: 'error', status: 529, error: apiError('Overloaded', 'server_error', null) }),
  serverError: (): OpenAiStep => ({
    kind: 'error',
    status: 500,
    error: apiError('The server had an error while processing your request.', 'server_error', null),
  }),
  unauthorized: (): OpenAiStep => ({
    kind: 'error',
    status: 401,
    error: apiError('Incorrect API key provided: stub-***.', 'invalid_request_error', 'invalid_api_key'),
  }),
  forbidden: (): OpenAiStep => ({
    kind: 'error',
    status: 403,
    error: apiError('You are not allowed to sample from this model.', 'invalid_request_error', 'model_not_allowed'),
  }),
  usageLimit: (resetEpochSeconds: number, nowEpochSeconds: number): OpenAiStep => ({
    kind: 'error',
    status: 429,
    error: {
      type: 'usage_limit_reached',
      message: 'The usage limit has been reached',
      plan_type: 'plus',
      resets_at: resetEpochSeconds,
      resets_in_seconds: Math.max(0, resetEpochSeconds - nowEpochSeconds),
    },
  }),
  failed: (): OpenAiStep => ({ kind: 'failed', code: 'server_error', message: 'The model failed to generate a response.' }),
  hang: (): OpenAiStep => ({ kind: 'hang' }),
  stall: (): OpenAiStep => ({ kind: 'stall' }),
};

const USAGE = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 9,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 21,
};

function outputItem(step: OpenAiStep): Record<string, unknown> | null {
  if (step.kind === 'text') {
    return {
      id: 'msg_stub_0001',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
  }
  if (step.kind === 'tool') {
    const namespace = step.namespace === undefined ? {} : { namespace: step.namespace };
    return {
      id: 'fc_stub_0001',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_stub_0001',
      name: step.name,
      ...namespace,
      arguments: JSON.stringify(step.args),
    };
  }
  return null;
}

/** The frames of one output item between `output_item.added` and `output_item.done`. */
function itemDeltas(step: OpenAiStep, next: () => number): string[] {
  const item = { item_id: step.kind === 'text' ? 'msg_stub_0001' : 'fc_stub_0001', output_index: 0 };
  if (step.kind === 'text') {
    const part = { type: 'output_text', text: '', annotations: [] };
    return [
      sseFrame('response.content_part.added', { type: 'response.content_part.added', sequence_number: next(), ...item, content_index: 0, part }),
      sseFrame('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: next(), ...item, content_index: 0, delta: step.text }),
      sseFrame('response.output_text.done', { type: 'response.output_text.done', sequence_number: next(), ...item, content_index: 0, text: step.text }),
      sseFrame('response.content_part.done', {
        type: 'response.content_part.done',
        sequence_number: next(),
        ...item,
        content_index: 0,
        part: { ...part, text: step.text },
      }),
    ];
  }
  if (step.kind !== 'tool') return [];
  const args = JSON.stringify(step.args);
  return [
    sseFrame('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', sequence_number: next(), ...item, delta: args }),
    sseFrame('response.function_call_arguments.done', { type: 'response.function_call_arguments.done', sequence_number: next(), ...item, arguments: args }),
  ];
}

function answerOpenAi(step: OpenAiStep, request: { body: Record<string, unknown>; stream: boolean | null }): Answer {
  const headers = { 'x-request-id': 'req_stub_0001' };
  if (step.kind === 'hang') return HANG;
  if (step.kind === 'error') return jsonAnswer(`error ${step.status}`, step.status, { error: step.error }, { ...headers, ...step.headers });
  let sequence = 0;
  const next = (): number => sequence++;
  const response = {
    id: 'resp_stub_0001',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'in_progress',
    model: typeof request.body.model === 'string' ? request.body.model : 'gpt-stub',
    output: [] as unknown[],
    usage: null as unknown,
    error: null as unknown,
  };
  const created = sseFrame('response.created', { type: 'response.created', sequence_number: next(), response });
  if (step.kind === 'stall') return sseAnswer('stall', [created], { open: true, headers });
  if (step.kind === 'failed') {
    const failed = { ...response, status: 'failed', error: { code: step.code, message: step.message } };
    return sseAnswer('failed', [created, sseFrame('response.failed', { type: 'response.failed', sequence_number: next(), response: failed })], { headers });
  }
  const item = outputItem(step);
  const completed = { ...response, status: 'completed', output: [item], usage: USAGE };
  // The API streams only when asked to (`stream: true`; it defaults to false): Codex always asks, the AI SDK's generateText never does.
  if (request.stream !== true) return jsonAnswer(step.kind, 200, completed, headers);
  const added = step.kind === 'text' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' };
  return sseAnswer(
    step.kind,
    [
      created,
      sseFrame('response.in_progress', { type: 'response.in_progress', sequence_number: next(), response }),
      sseFrame('response.output_item.added', { type: 'response.output_item.added', sequence_number: next(), output_index: 0, item: added }),
      ...itemDeltas(step, next),
      sseFrame('response.output_item.done', { type: 'response.output_item.done', sequence_number: next(), output_index: 0, item }),
      sseFrame('response.completed', { type: 'response.completed', sequence_number: next(), response: completed }),
    ],
    { headers },
  );
}

export function startOpenAiStub(steps: readonly OpenAiStep[], lanes?: StubLanes<OpenAiStep>): Promise<ProviderStub> {
  return startProviderStub({ apiPath: '/v1/responses', steps, answer: answerOpenAi, ...(lanes ? { lanes } : {}) });
}
