import type { TokenUsage } from './usage.js';

/**
 * Checks and small helpers around `TokenUsage` (usage.ts is shared verbatim with another
 * change, so what it needs lives here). A journal is written by other processes and read back
 * years later: an attempt end's `usage` is checked before it is stored, so every rollup sums
 * only finite, non-negative numbers.
 */

const COUNT_FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** Why `value` is not a `TokenUsage`, or null when it is one. */
export function usageProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'usage must be an object';
  const usage = value as Record<string, unknown>;
  if (usage.source !== 'telemetry' && usage.source !== 'result') return 'usage.source must be "telemetry" or "result"';
  for (const field of COUNT_FIELDS) {
    const n = usage[field];
    if (n !== undefined && (!Number.isSafeInteger(n) || (n as number) < 0)) return `usage.${field} must be a non-negative integer`;
  }
  const cost = usage.costUsd;
  if (cost !== undefined && (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0)) return 'usage.costUsd must be a non-negative number';
  return null;
}

/** A count read from an agent's payload: a non-negative integer, else undefined (absent, or not a count). */
export function tokenCount(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\d+$/.test(value)) return tokenCount(Number(value));
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A cost read from an agent's payload: a finite non-negative number, else undefined (cost unknown). */
export function costAmount(value: unknown): number | undefined {
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return costAmount(Number(value));
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A usage from the fields found; null when the agent reported none of them (nothing to show or sum). */
export function usageOf(fields: Omit<TokenUsage, 'source'>, source: TokenUsage['source']): TokenUsage | null {
  const usage: TokenUsage = { source };
  for (const field of COUNT_FIELDS) {
    const n = fields[field];
    if (n !== undefined) usage[field] = n;
  }
  if (fields.costUsd !== undefined) usage.costUsd = fields.costUsd;
  return Object.keys(usage).length > 1 ? usage : null;
}

/** Two usages of one source added (several requests of one attempt); a cost known only when both are. */
export function addUsage(a: TokenUsage | null, b: TokenUsage): TokenUsage {
  if (a === null) return b;
  const sum: TokenUsage = { source: a.source };
  for (const field of COUNT_FIELDS) {
    if (a[field] !== undefined || b[field] !== undefined) sum[field] = (a[field] ?? 0) + (b[field] ?? 0);
  }
  if (a.costUsd !== undefined && b.costUsd !== undefined) sum.costUsd = a.costUsd + b.costUsd;
  return sum;
}
