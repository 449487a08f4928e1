import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../core/service/api.js';
import { formatAbsolute } from '../../lib/format.js';
import { backoffReasons, delayReason, explainBackoff, type ScheduledBackoff } from './backoff-explanation.js';

const AT = 1_700_000_000_000;

/** The delays of examples/02: rate limit, default base 30 s, after attempts 1..n. */
function schedule(strategy: string, delays: number[]): ScheduledBackoff[] {
  return delays.map((delayMs, i) => ({ attempt: i + 1, delayMs, strategy }));
}

describe('explainBackoff', () => {
  it('names the strategy, its formula with the base read from the schedule, the retry and the next attempt time', () => {
    const s = schedule('rate_limit_exponential', [30_000, 60_000, 120_000]);
    expect(
      explainBackoff({ attempt: 3, delayMs: 120_000, strategy: 'rate_limit_exponential', maxAttempts: 6, schedule: s, nextAttemptAt: AT, skipped: false }),
    ).toBe(`rate limit → exponential 30s·2ⁿ = 2m, retry 3 of 5; next attempt at ${formatAbsolute(AT)}`);
  });

  it('shows the cap when a delay is below its formula, and only then', () => {
    const s = schedule('exponential', [2_000, 4_000, 8_000, 10_000]);
    expect(delayReason({ attempt: 4, delayMs: 10_000, strategy: 'exponential', schedule: s })).toBe('exponential 2s·2ⁿ, cap 10s = 10s');
    expect(delayReason({ attempt: 3, delayMs: 8_000, strategy: 'exponential', schedule: s })).toBe('exponential 2s·2ⁿ = 8s');
  });

  it('explains linear growth, transient errors and the fixed, listed, none and reset-time strategies', () => {
    const lin = schedule('transient_linear', [5_000, 10_000]);
    expect(delayReason({ attempt: 2, delayMs: 10_000, strategy: 'transient_linear', schedule: lin })).toBe('transient → linear 5s·(n+1) = 10s');
    expect(delayReason({ attempt: 1, delayMs: 3_000, strategy: 'fixed', schedule: [] })).toBe('fixed 3s');
    expect(delayReason({ attempt: 2, delayMs: 600_000, strategy: 'list', schedule: [] })).toBe('listed delay 2 = 10m');
    expect(delayReason({ attempt: 1, delayMs: 0, strategy: 'none', schedule: [] })).toBe('no delay');
    expect(delayReason({ attempt: 1, delayMs: 3_600_000, strategy: 'runtime_reset_time', schedule: [], reason: 'waiting for the runtime’s reset time' })).toBe(
      'runtime reset time → 1h (waiting for the runtime’s reset time)',
    );
  });

  it('reads the base from the strategy’s own first retry when the task changed strategy midway', () => {
    const s = [...schedule('transient_linear', [5_000]), { attempt: 2, delayMs: 60_000, strategy: 'rate_limit_exponential' }];
    expect(delayReason({ attempt: 2, delayMs: 60_000, strategy: 'rate_limit_exponential', schedule: s })).toBe('rate limit → exponential 30s·2ⁿ = 1m');
  });

  it('keeps an unknown strategy’s name and delay rather than guessing', () => {
    expect(delayReason({ attempt: 1, delayMs: 7_000, strategy: 'jitter', schedule: [] })).toBe('jitter = 7s');
    expect(delayReason({ attempt: 1, delayMs: 7_000, strategy: null, schedule: [] })).toBe('backoff = 7s');
  });

  it('says a skipped backoff was skipped', () => {
    const s = schedule('rate_limit_exponential', [30_000]);
    const text = explainBackoff({
      attempt: 1,
      delayMs: 30_000,
      strategy: 'rate_limit_exponential',
      maxAttempts: 3,
      schedule: s,
      nextAttemptAt: AT,
      skipped: true,
    });
    expect(text).toBe('skipped: rate limit → exponential 30s·2ⁿ = 30s, retry 1 of 2, cut short by the operator');
  });
});

describe('backoffReasons', () => {
  it('keys each journaled reason by task and attempt and ignores backoffs without one', () => {
    const base = { runId: 'r', seq: 1, ts: AT, step: 1, nodeId: 'n' };
    const events = [
      { ...base, type: 'retryScheduled', taskId: '1:0', attempt: 1, delayMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: AT },
      {
        ...base,
        type: 'retryScheduled',
        taskId: '1:0',
        attempt: 2,
        delayMs: 9_000,
        strategy: 'runtime_reset_time',
        nextAttemptAt: AT,
        reason: 'reset at noon',
      },
    ] as unknown as HivewatchEvent[];
    expect([...backoffReasons(events)]).toEqual([['1:0#2', 'reset at noon']]);
  });
});
