import type { OpenAiStep } from './openai-stub.js';
import { HANG, jsonAnswer, startProviderStub, type Answer, type ProviderStub } from './provider-stub.js';

/**
 * A local OpenAI Chat Completions API (`POST /v1/chat/completions`, not streamed) answering from
 * the same script steps as the Responses stub (openai-stub.ts), in the format the API reference
 * documents: a `chat.completion` object with `choices[].message` (text, or `tool_calls` with
 * `finish_reason: "tool_calls"`) and `usage {prompt_tokens, completion_tokens, total_tokens}`;
 * errors as `{"error":{"message","type","param","code"}}` with the HTTP status. What the GenAI
 * fixture client (agents-real/genai-client/) talks to.
 */

/** What every answer reports as used: the GenAI spans carry it as `gen_ai.usage.*`. */
export const CHAT_USAGE = { prompt_tokens: 17, completion_tokens: 5, total_tokens: 22 };

function message(step: OpenAiStep): { message: Record<string, unknown>; finish: string } | null {
  if (step.kind === 'text') return { message: { role: 'assistant', content: step.text, refusal: null }, finish: 'stop' };
  if (step.kind !== 'tool') return null;
  const call = { id: 'call_stub_0001', type: 'function', function: { name: step.name, arguments: JSON.stringify(step.args) } };
  return { message: { role: 'assistant', content: null, refusal: null, tool_calls: [call] }, finish: 'tool_calls' };
}

function answerChat(step: OpenAiStep, request: { body: Record<string, unknown> }): Answer {
  const headers = { 'x-request-id': 'req_stub_chat_0001' };
  if (step.kind === 'hang' || step.kind === 'stall') return HANG;
  if (step.kind === 'error') return jsonAnswer(`error ${step.status}`, step.status, { error: step.error }, { ...headers, ...step.headers });
  const answer = message(step);
  if (answer === null) {
    const error = { message: step.kind === 'failed' ? step.message : 'The server had an error.', type: 'server_error', param: null, code: null };
    return jsonAnswer('error 500', 500, { error }, headers);
  }
  const completion = {
    id: 'chatcmpl-stub0001',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: typeof request.body.model === 'string' ? `${request.body.model}-2026-01-01` : 'gpt-stub',
    choices: [{ index: 0, message: answer.message, logprobs: null, finish_reason: answer.finish }],
    usage: CHAT_USAGE,
    system_fingerprint: 'fp_stub',
  };
  return jsonAnswer(step.kind, 200, completion, headers);
}

export function startOpenAiChatStub(steps: readonly OpenAiStep[]): Promise<ProviderStub> {
  return startProviderStub({ apiPath: '/v1/chat/completions', steps, answer: answerChat });
}
