import type { TokenUsage } from '../base/usage.js';
import { costAmount, tokenCount, usageOf } from '../base/usage-check.js';
import { own, type AttributeValue, type TelemetryRecord } from './receive/decode.js';
import { eventName } from './mapping.js';

/**
 * The tokens and cost a telemetry record reports for the request it describes
 * (docs/otel.md "Tokens and cost"), in TokenUsage's terms: `inputTokens` is the input not served
 * from the prompt cache, whichever agent sent it.
 *
 * - Claude Code `claude_code.api_request` (and `api_error` where it carries them): `cost_usd`,
 *   `input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_creation_tokens`.
 * - Codex `codex.sse_event` of kind `response.completed`: `input_token_count` (cached ones
 *   included, as OpenAI counts), `cached_token_count`, `cache_write_token_count`,
 *   `output_token_count` (reasoning included). No cost: it stays unknown.
 */
export function telemetryUsage(record: TelemetryRecord): TokenUsage | null {
  const a = (key: string): AttributeValue | undefined => own(record.attributes, key);
  const name = eventName(record);
  if (name === 'claude_code.api_request' || name === 'claude_code.api_error') {
    return usageOf(
      {
        inputTokens: tokenCount(a('input_tokens')),
        outputTokens: tokenCount(a('output_tokens')),
        cacheReadTokens: tokenCount(a('cache_read_tokens')),
        cacheWriteTokens: tokenCount(a('cache_creation_tokens')),
        costUsd: costAmount(a('cost_usd')),
      },
      'telemetry',
    );
  }
  if (name === 'codex.sse_event' && a('event.kind') === 'response.completed') {
    const input = tokenCount(a('input_token_count'));
    const cached = tokenCount(a('cached_token_count'));
    return usageOf(
      {
        inputTokens: input === undefined ? undefined : Math.max(0, input - (cached ?? 0)),
        outputTokens: tokenCount(a('output_token_count')),
        cacheReadTokens: cached,
        cacheWriteTokens: tokenCount(a('cache_write_token_count')),
      },
      'telemetry',
    );
  }
  return null;
}

/**
 * Codex logs `response.completed` twice for one stream: once as a plain SSE event, then again
 * with the response's token counts. The first would end the attempt before its usage is known:
 * when the second follows in the same payload (before another request, error or prompt of the
 * session), the first is kept as an event and the second ends the attempt with its usage.
 */
export function usageFollows(records: readonly TelemetryRecord[], index: number): boolean {
  const record = records[index];
  if (record === undefined || eventName(record) !== 'codex.sse_event' || own(record.attributes, 'event.kind') !== 'response.completed') return false;
  if (telemetryUsage(record) !== null) return false;
  for (let i = index + 1; i < records.length; i++) {
    const next = records[i] as TelemetryRecord;
    const name = eventName(next);
    if (name === 'codex.sse_event' && own(next.attributes, 'event.kind') === 'response.completed') return telemetryUsage(next) !== null;
    if (name === 'codex.api_request' || name === 'codex.user_prompt' || own(next.attributes, 'error.message') !== undefined) return false;
  }
  return false;
}
