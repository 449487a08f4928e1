import type { HivewatchEvent } from '../../../core/service/api.js';
import { formatAbsolute, formatDelay } from '../../lib/format.js';

/**
 * Why a backoff gap is as long as it is, in one line ("rate limit → exponential 30s·2ⁿ = 2m,
 * retry 3 of 4"), from what the journal holds: the delay and strategy of each retryScheduled,
 * its optional reason, its nextAttemptAt, and whether a backoffSkipped cut it short.
 *
 * The journal does not carry the policy's base delay or cap, so they are read back from the
 * task's own schedule: the base is the first delay of that strategy divided by its growth
 * factor at that retry; a delay below base·factor was capped, and the cap is that delay. A cap
 * that never bit is not shown (it is not on the record).
 */

/** One journaled backoff of a task: the delay after attempt `attempt` (1-based). */
export interface ScheduledBackoff {
  attempt: number;
  delayMs: number;
  strategy: string | null;
}

export interface BackoffFacts {
  /** The attempt after which the task waited; the gap leads to attempt + 1. */
  attempt: number;
  delayMs: number;
  strategy: string | null;
  /** The task's attempts allowed (retries + 1). */
  maxAttempts: number;
  /** Every backoff the task journaled (this one included), to read base and cap from. */
  schedule: readonly ScheduledBackoff[];
  /** retryScheduled.reason, when the policy alone does not explain the delay. */
  reason?: string | null;
  nextAttemptAt: number | null;
  skipped: boolean;
}

interface Growth {
  /** What the strategy is called in the explanation. */
  name: string;
  /** The formula with its base: "30s·2ⁿ". */
  formula: (base: string) => string;
  /** Multiplier of the base at retry n (0-based). */
  factor: (n: number) => number;
}

const exponential = (name: string): Growth => ({ name, formula: (b) => `${b}·2ⁿ`, factor: (n) => 2 ** n });
const linear = (name: string): Growth => ({ name, formula: (b) => `${b}·(n+1)`, factor: (n) => n + 1 });

/** The strategy names of core/base/errors/retry.ts (RetryStrategy) that grow from a base delay. */
const GROWING: Readonly<Record<string, Growth>> = {
  rate_limit_exponential: exponential('rate limit → exponential'),
  exponential: exponential('exponential'),
  transient_linear: linear('transient → linear'),
  linear: linear('linear'),
};

/** The base delay a growing strategy started from: its earliest retry in the schedule. */
function inferBase(growth: Growth, strategy: string, schedule: readonly ScheduledBackoff[]): number | null {
  const first = [...schedule].filter((s) => s.strategy === strategy).sort((a, b) => a.attempt - b.attempt)[0];
  if (!first) return null;
  return first.delayMs / growth.factor(first.attempt - 1);
}

/** How the delay came about, without the retry count or the time; a journaled reason follows it. */
export function delayReason(facts: Pick<BackoffFacts, 'attempt' | 'delayMs' | 'strategy' | 'schedule' | 'reason'>): string {
  const how = delayFormula(facts);
  return facts.reason ? `${how} (${facts.reason})` : how;
}

function delayFormula({ attempt, delayMs, strategy, schedule }: Pick<BackoffFacts, 'attempt' | 'delayMs' | 'strategy' | 'schedule'>): string {
  const delay = formatDelay(delayMs);
  if (strategy === 'runtime_reset_time') return `runtime reset time → ${delay}`;
  if (strategy === 'none') return 'no delay';
  if (strategy === 'fixed') return `fixed ${delay}`;
  if (strategy === 'list') return `listed delay ${attempt} = ${delay}`;
  const growth = strategy ? GROWING[strategy] : undefined;
  if (!strategy || !growth) return `${strategy ?? 'backoff'} = ${delay}`;
  const base = inferBase(growth, strategy, schedule);
  if (base === null || !Number.isFinite(base) || base <= 0) return `${growth.name} = ${delay}`;
  const capped = delayMs < base * growth.factor(attempt - 1);
  return `${growth.name} ${growth.formula(formatDelay(base))}${capped ? `, cap ${delay}` : ''} = ${delay}`;
}

/**
 * The gap's whole explanation: how the delay came about, which retry it leads to, and when that
 * attempt runs (or that the operator skipped the wait).
 */
export function explainBackoff(facts: BackoffFacts): string {
  const retries = Math.max(0, facts.maxAttempts - 1);
  const head = `${delayReason(facts)}, retry ${facts.attempt} of ${retries}`;
  if (facts.skipped) return `skipped: ${head}, cut short by the operator`;
  if (facts.nextAttemptAt === null) return head;
  return `${head}; next attempt at ${formatAbsolute(facts.nextAttemptAt)}`;
}

/** `taskId#attempt` → the reason its retryScheduled journaled, for the backoffs that have one. */
export function backoffReasons(events: readonly HivewatchEvent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'retryScheduled' && e.reason) out.set(`${e.taskId}#${e.attempt}`, e.reason);
  }
  return out;
}
