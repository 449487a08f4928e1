import { describe, expect, it } from 'vitest';
import { classifyForRetry, decideRetry, NO_RETRY, retrySchedule, validateRetryPolicy, type RetryPolicy } from './retry.js';

const policy = (p: Partial<RetryPolicy>): RetryPolicy => ({ retries: 3, backoff: null, baseDelayMs: null, maxDelayMs: null, ...p });
const RATE_LIMIT = { code: 'RUNTIME_RATE_LIMIT', recoverable: true };
const TIMEOUT = { code: 'RUNTIME_TIMEOUT', recoverable: true };
const CRASH = { code: 'RUNTIME_CRASHED', recoverable: true };
const FATAL = { code: 'USER_INVALID_CONFIG', recoverable: false };

describe('retry schedules (pure: policy, error, attempt)', () => {
  it('rate limit, no explicit backoff: exponential 30s·2^n capped at 300s', () => {
    expect(retrySchedule(policy({ retries: 6 }), RATE_LIMIT)).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  });

  it('transient, no explicit backoff: linear 5s·(n+1)', () => {
    expect(retrySchedule(policy({ retries: 3 }), TIMEOUT)).toEqual([5_000, 10_000, 15_000]);
    expect(retrySchedule(policy({ retries: 3 }), CRASH)).toEqual([5_000, 10_000, 15_000]);
  });

  it('fatal: no retry whatever the policy', () => {
    expect(retrySchedule(policy({ retries: 6 }), FATAL)).toEqual([]);
    expect(retrySchedule(policy({ retries: 6, backoff: 'fixed', baseDelayMs: 10 }), FATAL)).toEqual([]);
    expect(decideRetry(policy({ retries: 6 }), FATAL, 1)).toEqual({ retry: false, delayMs: 0, strategy: 'fatal' });
  });

  it('no retry policy: one attempt', () => {
    expect(retrySchedule(NO_RETRY, TIMEOUT)).toEqual([]);
    expect(decideRetry(NO_RETRY, TIMEOUT, 1)).toEqual({ retry: false, delayMs: 0, strategy: 'exhausted' });
  });

  it('the default rate-limit schedule honours an explicit delay and max-delay', () => {
    expect(retrySchedule(policy({ retries: 5, baseDelayMs: 10_000, maxDelayMs: 50_000 }), RATE_LIMIT)).toEqual([10_000, 20_000, 40_000, 50_000, 50_000]);
  });

  it('exponential: base·2^n, capped', () => {
    expect(retrySchedule(policy({ retries: 4, backoff: 'exponential' }), TIMEOUT)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retrySchedule(policy({ retries: 5, backoff: 'exponential', baseDelayMs: 30_000, maxDelayMs: 300_000 }), RATE_LIMIT)).toEqual([
      30_000, 60_000, 120_000, 240_000, 300_000,
    ]);
    expect(retrySchedule(policy({ retries: 4, backoff: 'exponential', baseDelayMs: 1_000, maxDelayMs: 3_000 }), TIMEOUT)).toEqual([1_000, 2_000, 3_000, 3_000]);
  });

  it('linear: base·(n+1)', () => {
    expect(retrySchedule(policy({ retries: 3, backoff: 'linear', baseDelayMs: 500 }), TIMEOUT)).toEqual([500, 1_000, 1_500]);
  });

  it('fixed: base every time', () => {
    expect(retrySchedule(policy({ retries: 3, backoff: 'fixed', baseDelayMs: 2_000 }), RATE_LIMIT)).toEqual([2_000, 2_000, 2_000]);
  });

  it('list: one delay per retry, the last repeating', () => {
    expect(retrySchedule(policy({ retries: 4, backoff: [100, 200] }), TIMEOUT)).toEqual([100, 200, 200, 200]);
    expect(decideRetry(policy({ backoff: [100, 200] }), TIMEOUT, 2)).toEqual({ retry: true, delayMs: 200, strategy: 'list' });
  });

  it('none: immediate retries', () => {
    expect(retrySchedule(policy({ retries: 2, backoff: 'none' }), TIMEOUT)).toEqual([0, 0]);
  });

  it('names the strategy it used', () => {
    expect(decideRetry(policy({}), RATE_LIMIT, 1).strategy).toBe('rate_limit_exponential');
    expect(decideRetry(policy({}), TIMEOUT, 1).strategy).toBe('transient_linear');
    expect(decideRetry(policy({}), TIMEOUT, 4)).toEqual({ retry: false, delayMs: 0, strategy: 'exhausted' });
  });

  it('classifies errors for retry', () => {
    expect([RATE_LIMIT, TIMEOUT, FATAL].map(classifyForRetry)).toEqual(['rate_limit', 'transient', 'fatal']);
  });
});

describe('validateRetryPolicy', () => {
  it('accepts valid policies', () => {
    expect(validateRetryPolicy(NO_RETRY)).toBeNull();
    expect(validateRetryPolicy(policy({ retries: 5, backoff: 'exponential', baseDelayMs: 30_000, maxDelayMs: 300_000 }))).toBeNull();
    expect(validateRetryPolicy(policy({ backoff: [0, 1_000] }))).toBeNull();
  });

  it('rejects invalid ones with exact messages', () => {
    expect(validateRetryPolicy(policy({ retries: -1 }))).toBe('retry must be a whole number of at least 0, got -1');
    expect(validateRetryPolicy(policy({ retries: 1.5 }))).toBe('retry must be a whole number of at least 0, got 1.5');
    expect(validateRetryPolicy(policy({ retries: 101 }))).toBe('retry must be at most 100, got 101');
    expect(validateRetryPolicy(policy({ backoff: 'random' as 'none' }))).toBe(
      'backoff must be one of none, fixed, linear, exponential or a list of delays, got "random"',
    );
    expect(validateRetryPolicy(policy({ backoff: [] }))).toBe('backoff list must name at least one delay');
    expect(validateRetryPolicy(policy({ backoff: [100, -1] }))).toBe('backoff list delays must be durations of at least 0');
    expect(validateRetryPolicy(policy({ baseDelayMs: -5 }))).toBe('delay must be a duration of at least 0, got -5ms');
    expect(validateRetryPolicy(policy({ maxDelayMs: Number.NaN }))).toBe('max-delay must be a duration of at least 0, got NaNms');
    expect(validateRetryPolicy(policy({ baseDelayMs: 2_000, maxDelayMs: 1_000 }))).toBe('max-delay (1000ms) must not be less than delay (2000ms)');
  });
});
