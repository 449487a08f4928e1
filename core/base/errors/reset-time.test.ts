import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { decideRetry, RESET_WAIT_CAP_MS, resetTimeDelay, type RetryPolicy, type RetryableFailure } from './retry.js';

/** The wait for a runtime's reset time: a pure function of (policy, error, attempt), bounded by its own cap. */

const HOUR = 3_600_000;
const policies: fc.Arbitrary<RetryPolicy> = fc.record({
  retries: fc.integer({ min: 1, max: 10 }),
  backoff: fc.constantFrom<RetryPolicy['backoff']>(null, 'none', 'fixed', 'linear', 'exponential', [1_000, 60_000]),
  baseDelayMs: fc.option(fc.integer({ min: 0, max: HOUR }), { nil: null }),
  maxDelayMs: fc.option(fc.integer({ min: HOUR, max: 2 * HOUR }), { nil: null }),
});
const now = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 });
const offset = fc.integer({ min: -2 * HOUR, max: 30 * 24 * HOUR });

const rateLimit = (timestamp: number, resetAt?: number): RetryableFailure => ({
  code: 'RUNTIME_RATE_LIMIT',
  recoverable: true,
  timestamp,
  context: resetAt === undefined ? { usageLimit: true } : { usageLimit: true, resetAt },
});

describe('reset-time delay', () => {
  it('never waits beyond its cap, nor below zero, whatever the policy says', async () => {
    await assertProperty(
      fc.property(policies, now, offset, (policy, t, d) => {
        const decision = decideRetry(policy, rateLimit(t, t + d), 1);
        expect(decision.retry).toBe(true);
        expect(decision.strategy).toBe('runtime_reset_time');
        expect(decision.delayMs).toBeGreaterThanOrEqual(0);
        expect(decision.delayMs).toBeLessThanOrEqual(RESET_WAIT_CAP_MS);
      }),
      { seed: 23001, numRuns: 100 },
    );
  });

  it('equals reset-at minus the failure time when within the cap, even past max-delay', async () => {
    await assertProperty(
      fc.property(policies, now, fc.integer({ min: 0, max: RESET_WAIT_CAP_MS }), fc.integer({ min: 1, max: 5 }), (policy, t, d, attempt) => {
        fc.pre(attempt <= policy.retries);
        const decision = decideRetry(policy, rateLimit(t, t + d), attempt);
        expect(decision.delayMs).toBe(d);
        expect(decision.reason).toBe(`waiting for the runtime's reset time ${new Date(t + d).toISOString()}`);
      }),
      { seed: 23002, numRuns: 100 },
    );
  });

  it("is the policy's own backoff when the error gives no reset time", async () => {
    await assertProperty(
      fc.property(policies, now, fc.integer({ min: 1, max: 5 }), (policy, t, attempt) => {
        const withoutReset = decideRetry(policy, rateLimit(t), attempt);
        const bare = decideRetry(policy, { code: 'RUNTIME_RATE_LIMIT', recoverable: true }, attempt);
        expect(withoutReset).toEqual(bare);
        expect(withoutReset.strategy).not.toBe('runtime_reset_time');
        expect(withoutReset).not.toHaveProperty('reason');
      }),
      { seed: 23003, numRuns: 100 },
    );
  });

  it('says when it waits the cap instead of the reset time', () => {
    const t = Date.UTC(2026, 10, 23, 12);
    const later = t + 3 * 24 * HOUR;
    expect(resetTimeDelay(rateLimit(t, later))).toEqual({
      delayMs: RESET_WAIT_CAP_MS,
      reason: 'runtime reset time 2026-11-26T12:00:00.000Z is beyond the 6h cap: waiting the cap',
    });
    expect(resetTimeDelay(rateLimit(t, t - 1_000))).toEqual({ delayMs: 0, reason: "waiting for the runtime's reset time 2026-11-23T11:59:59.000Z" });
  });

  it('does not retry past the policy or a fatal error because a reset time is given', () => {
    const t = Date.UTC(2026, 10, 23, 12);
    const policy: RetryPolicy = { retries: 1, backoff: null, baseDelayMs: null, maxDelayMs: null };
    expect(decideRetry(policy, rateLimit(t, t + HOUR), 2)).toEqual({ retry: false, delayMs: 0, strategy: 'exhausted' });
    expect(decideRetry(policy, { ...rateLimit(t, t + HOUR), code: 'USER_INVALID_CONFIG', recoverable: false }, 1)).toEqual({
      retry: false,
      delayMs: 0,
      strategy: 'fatal',
    });
  });

  it('ignores a reset time without the time the failure was observed', () => {
    expect(resetTimeDelay({ code: 'RUNTIME_RATE_LIMIT', recoverable: true, context: { resetAt: 5 } })).toBeNull();
    expect(resetTimeDelay({ code: 'RUNTIME_RATE_LIMIT', recoverable: true, timestamp: 1, context: { resetAt: '5' } })).toBeNull();
  });
});
