/**
 * Retry policies and their schedules as pure functions of (policy, error, attempt): no jitter,
 * no clock, no state. The engine journals what these return before it sleeps.
 */

export const BackoffKind = {
  none: 'none',
  fixed: 'fixed',
  linear: 'linear',
  exponential: 'exponential',
} as const;
export type BackoffKind = (typeof BackoffKind)[keyof typeof BackoffKind];
const BACKOFF_KINDS: readonly BackoffKind[] = Object.values(BackoffKind);

/** `retries` is how many times a failed attempt may be tried again: `retry: 3` means up to 4 attempts. */
export interface RetryPolicy {
  retries: number;
  /** null: the error decides (rate limit → exponential, transient → linear, fatal → none). */
  backoff: BackoffKind | readonly number[] | null;
  baseDelayMs: number | null;
  maxDelayMs: number | null;
}

export const NO_RETRY: RetryPolicy = Object.freeze({ retries: 0, backoff: null, baseDelayMs: null, maxDelayMs: null });

const RetryStrategy = {
  none: 'none',
  fixed: 'fixed',
  linear: 'linear',
  exponential: 'exponential',
  list: 'list',
  rateLimit: 'rate_limit_exponential',
  transient: 'transient_linear',
  fatal: 'fatal',
  exhausted: 'exhausted',
  /** The runtime said when to try again (a usage limit's reset time, like a Retry-After). */
  resetTime: 'runtime_reset_time',
} as const;
type RetryStrategy = (typeof RetryStrategy)[keyof typeof RetryStrategy];

const DEFAULT_BASE_DELAY_MS = 1_000;
const DEFAULT_MAX_DELAY_MS = 300_000;
const RATE_LIMIT_BASE_DELAY_MS = 30_000;
const RATE_LIMIT_MAX_DELAY_MS = 300_000;
const TRANSIENT_BASE_DELAY_MS = 5_000;

/**
 * The longest wait for a reset time a runtime gave (context.resetAt). It has its own cap rather
 * than the policy's `max-delay`, which is sized for backoff between attempts, not for a
 * subscription window: a 5-hour usage limit must be waited out, but a weekly one should not
 * park a run for days without anyone seeing another attempt. After the cap the next attempt
 * runs and, if the limit still holds, reports a new reset time.
 */
export const RESET_WAIT_CAP_MS = 6 * 3_600_000;

/** The part of an error a retry decision may look at. */
export interface RetryableFailure {
  code: string;
  recoverable: boolean;
  /** `resetAt` (epoch ms): when the runtime said the failure clears, as it reported it. */
  context?: Record<string, unknown>;
  /** When the failure was observed (the engine's clock): the reset time is waited for from here. */
  timestamp?: number;
}

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
  strategy: RetryStrategy;
  /** Why the delay is what it is, when the policy alone does not explain it (journaled). */
  reason?: string;
}

/** The reset time a failure carries (context.resetAt, epoch ms), or null. */
function resetTimeOf(failure: RetryableFailure): number | null {
  const resetAt = failure.context?.resetAt;
  return typeof resetAt === 'number' && Number.isFinite(resetAt) ? resetAt : null;
}

/**
 * The wait until a reset time, measured from when the failure was observed, never below 0 and
 * never beyond RESET_WAIT_CAP_MS. Null when the failure gives no reset time or no observation time.
 */
export function resetTimeDelay(failure: RetryableFailure): { delayMs: number; reason: string } | null {
  const resetAt = resetTimeOf(failure);
  if (resetAt === null || typeof failure.timestamp !== 'number' || !Number.isFinite(failure.timestamp)) return null;
  const wait = Math.max(0, resetAt - failure.timestamp);
  const at = new Date(resetAt).toISOString();
  if (wait > RESET_WAIT_CAP_MS) {
    return { delayMs: RESET_WAIT_CAP_MS, reason: `runtime reset time ${at} is beyond the ${RESET_WAIT_CAP_MS / 3_600_000}h cap: waiting the cap` };
  }
  return { delayMs: wait, reason: `waiting for the runtime's reset time ${at}` };
}

export type ErrorRetryClass = 'rate_limit' | 'transient' | 'fatal';

export function classifyForRetry(failure: RetryableFailure): ErrorRetryClass {
  if (!failure.recoverable) return 'fatal';
  if (failure.code === 'RUNTIME_RATE_LIMIT') return 'rate_limit';
  return 'transient';
}

const cap = (delay: number, max: number): number => Math.min(delay, max);

/**
 * The cap when the policy sets no `max-delay`: 300 s, but never below a delay the policy names
 * itself (`delay: "1h"` waits an hour; `backoff: [1s, 10m]` waits ten minutes), so a policy is
 * followed as written. Growth past the named delays (exponential, linear) stops at the default.
 */
function effectiveMaxDelay(policy: RetryPolicy, fallback: number): number {
  if (policy.maxDelayMs !== null) return policy.maxDelayMs;
  const listed = Array.isArray(policy.backoff) ? (policy.backoff as readonly number[]) : [];
  return Math.max(fallback, policy.baseDelayMs ?? 0, ...listed);
}

/**
 * What to do after attempt `attempt` (1-based) failed with `failure`. The n-th retry (n = attempt - 1,
 * starting at 0) waits: fixed base; linear base·(n+1); exponential base·2^n; list[n] (last repeats);
 * all capped at the max delay. A fatal error is never retried, whatever the policy says. A
 * failure that carries a reset time waits until then instead (capped at RESET_WAIT_CAP_MS).
 */
export function decideRetry(policy: RetryPolicy, failure: RetryableFailure, attempt: number): RetryDecision {
  const retryClass = classifyForRetry(failure);
  if (retryClass === 'fatal') return { retry: false, delayMs: 0, strategy: RetryStrategy.fatal };
  if (attempt > policy.retries) return { retry: false, delayMs: 0, strategy: RetryStrategy.exhausted };
  // A reset time the runtime gave outranks the policy's schedule, as a server's Retry-After does:
  // trying again before it is a wasted attempt.
  const reset = resetTimeDelay(failure);
  if (reset !== null) return { retry: true, delayMs: reset.delayMs, strategy: RetryStrategy.resetTime, reason: reset.reason };
  const n = attempt - 1;
  const { backoff } = policy;
  if (backoff === null) {
    if (retryClass === 'rate_limit') {
      const base = policy.baseDelayMs ?? RATE_LIMIT_BASE_DELAY_MS;
      const max = effectiveMaxDelay(policy, RATE_LIMIT_MAX_DELAY_MS);
      return { retry: true, delayMs: cap(base * 2 ** n, max), strategy: RetryStrategy.rateLimit };
    }
    const base = policy.baseDelayMs ?? TRANSIENT_BASE_DELAY_MS;
    const max = effectiveMaxDelay(policy, DEFAULT_MAX_DELAY_MS);
    return { retry: true, delayMs: cap(base * (n + 1), max), strategy: RetryStrategy.transient };
  }
  const max = effectiveMaxDelay(policy, DEFAULT_MAX_DELAY_MS);
  if (typeof backoff !== 'string') {
    const delay = backoff[Math.min(n, backoff.length - 1)] ?? 0;
    return { retry: true, delayMs: cap(delay, max), strategy: RetryStrategy.list };
  }
  const base = policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  switch (backoff) {
    case 'none':
      return { retry: true, delayMs: 0, strategy: RetryStrategy.none };
    case 'fixed':
      return { retry: true, delayMs: cap(base, max), strategy: RetryStrategy.fixed };
    case 'linear':
      return { retry: true, delayMs: cap(base * (n + 1), max), strategy: RetryStrategy.linear };
    case 'exponential':
      return { retry: true, delayMs: cap(base * 2 ** n, max), strategy: RetryStrategy.exponential };
  }
}

/** The whole schedule a policy gives a failure that keeps recurring: one delay per retry. */
export function retrySchedule(policy: RetryPolicy, failure: RetryableFailure): number[] {
  const delays: number[] = [];
  for (let attempt = 1; ; attempt++) {
    const decision = decideRetry(policy, failure, attempt);
    if (!decision.retry) return delays;
    delays.push(decision.delayMs);
  }
}

const MAX_RETRIES = 100;
const MAX_DELAY_MS = 24 * 3_600_000;

/** Exact messages; the validator and its tests share them. Returns null for a valid policy. */
export function validateRetryPolicy(policy: RetryPolicy): string | null {
  if (!Number.isInteger(policy.retries) || policy.retries < 0) {
    return `retry must be a whole number of at least 0, got ${policy.retries}`;
  }
  if (policy.retries > MAX_RETRIES) return `retry must be at most ${MAX_RETRIES}, got ${policy.retries}`;
  if (typeof policy.backoff === 'string' && !BACKOFF_KINDS.includes(policy.backoff)) {
    return `backoff must be one of ${BACKOFF_KINDS.join(', ')} or a list of delays, got "${policy.backoff}"`;
  }
  if (Array.isArray(policy.backoff)) {
    if (policy.backoff.length === 0) return 'backoff list must name at least one delay';
    if (policy.backoff.some((d) => !Number.isFinite(d) || d < 0)) return 'backoff list delays must be durations of at least 0';
  }
  if (policy.baseDelayMs !== null && (!Number.isFinite(policy.baseDelayMs) || policy.baseDelayMs < 0)) {
    return `delay must be a duration of at least 0, got ${policy.baseDelayMs}ms`;
  }
  if (policy.maxDelayMs !== null && (!Number.isFinite(policy.maxDelayMs) || policy.maxDelayMs < 0)) {
    return `max-delay must be a duration of at least 0, got ${policy.maxDelayMs}ms`;
  }
  const longest = Math.max(policy.baseDelayMs ?? 0, policy.maxDelayMs ?? 0, ...(Array.isArray(policy.backoff) ? policy.backoff : []));
  if (longest > MAX_DELAY_MS) return `delays must be at most 24h, got ${longest}ms`;
  if (policy.baseDelayMs !== null && policy.maxDelayMs !== null && policy.maxDelayMs < policy.baseDelayMs) {
    return `max-delay (${policy.maxDelayMs}ms) must not be less than delay (${policy.baseDelayMs}ms)`;
  }
  if (Array.isArray(policy.backoff) && policy.maxDelayMs !== null) {
    const longestListed = Math.max(...(policy.backoff as readonly number[]));
    if (policy.maxDelayMs < longestListed) {
      return `max-delay (${policy.maxDelayMs}ms) must not be less than the longest backoff delay (${longestListed}ms): it would never be waited`;
    }
  }
  return null;
}
