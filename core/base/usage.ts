/**
 * What one attempt of an agent consumed, as the agent itself reported it. Every field
 * is optional because agents report different subsets: Claude Code reports tokens and a cost,
 * Codex and most OpenTelemetry GenAI clients report tokens only. `costUsd` absent means "cost
 * unknown", never zero: Hivewatch keeps no price tables.
 */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens served from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written into the provider's prompt cache. */
  cacheWriteTokens?: number;
  costUsd?: number;
  /** Where the figures came from: the agent's telemetry, or the preset's own result (stream-json / exec JSON). */
  source: 'telemetry' | 'result';
}
