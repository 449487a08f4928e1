import type { TokenUsage } from '../../base/usage.js';
import { addUsage, costAmount, tokenCount, usageOf } from '../../base/usage-check.js';
import { isRecord } from '../../base/json.js';
import type { AttemptResult } from '../runtime.js';

/**
 * What a preset's own result says an attempt consumed (docs/presets.md "Tokens and
 * cost"). `inputTokens` is the input NOT served from the prompt cache on every source, so the
 * four token kinds add up to what the model read and wrote without counting a token twice.
 */

/**
 * Claude Code's result object (`--output-format json`, or the last line of `stream-json`):
 * `total_cost_usd`, `modelUsage` {<model>: {inputTokens, outputTokens, cacheReadInputTokens,
 * cacheCreationInputTokens, costUSD, …}} and `usage` {input_tokens, output_tokens,
 * cache_read_input_tokens, cache_creation_input_tokens}. `modelUsage` counts every call the
 * process made, its subagents' (the Agent tool) included; `usage` only the main conversation's
 * (2.1.332, recorded: a subagent's run reports 12 / 9 in `usage` and 48 / 36 in `modelUsage`). So
 * the tokens are `modelUsage` summed over its models when it is there, else `usage`; the cost is
 * `total_cost_usd`, which already covers every call. Anthropic's input tokens exclude cache reads
 * and writes.
 */
export function claudeResultUsage(result: Record<string, unknown>): TokenUsage | null {
  const cost = costAmount(result.total_cost_usd);
  const models = modelUsageTokens(result.modelUsage);
  if (models !== null) return cost === undefined ? models : { ...models, costUsd: cost };
  const usage = isRecord(result.usage) ? result.usage : {};
  return usageOf(
    {
      inputTokens: tokenCount(usage.input_tokens),
      outputTokens: tokenCount(usage.output_tokens),
      cacheReadTokens: tokenCount(usage.cache_read_input_tokens),
      cacheWriteTokens: tokenCount(usage.cache_creation_input_tokens),
      costUsd: cost,
    },
    'result',
  );
}

/** `modelUsage`'s tokens summed over its models (no cost: `total_cost_usd` says it), or null when it holds none. */
function modelUsageTokens(value: unknown): TokenUsage | null {
  if (!isRecord(value)) return null;
  let sum: TokenUsage | null = null;
  for (const model of Object.values(value)) {
    if (!isRecord(model)) continue;
    const one = usageOf(
      {
        inputTokens: tokenCount(model.inputTokens),
        outputTokens: tokenCount(model.outputTokens),
        cacheReadTokens: tokenCount(model.cacheReadInputTokens),
        cacheWriteTokens: tokenCount(model.cacheCreationInputTokens),
      },
      'result',
    );
    if (one !== null) sum = addUsage(sum, one);
  }
  return sum;
}

/**
 * Codex's `turn.completed` usage (`codex exec --json`): {input_tokens, cached_input_tokens,
 * cache_write_input_tokens, output_tokens, reasoning_output_tokens}. OpenAI's `input_tokens`
 * includes the cached ones, so they are taken off; reasoning tokens are part of `output_tokens`.
 * Codex reports no cost: it stays unknown.
 */
export function codexTurnUsage(usage: Record<string, unknown>): TokenUsage | null {
  const input = tokenCount(usage.input_tokens);
  const cached = tokenCount(usage.cached_input_tokens);
  return usageOf(
    {
      inputTokens: input === undefined ? undefined : Math.max(0, input - (cached ?? 0)),
      outputTokens: tokenCount(usage.output_tokens),
      cacheReadTokens: cached,
      cacheWriteTokens: tokenCount(usage.cache_write_input_tokens),
    },
    'result',
  );
}

/** The result with the usage on it (a cancelled attempt carries none). */
export function withUsage(result: AttemptResult, usage: TokenUsage | null): AttemptResult {
  if (usage === null || result.kind === 'cancelled') return result;
  return { ...result, usage };
}
