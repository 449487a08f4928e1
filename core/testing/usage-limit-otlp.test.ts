import { describe, expect, it } from 'vitest';
import { parseUsageLimit } from '../base/errors/usage-limit.js';
import { movedReset, usageLimitSession } from './usage-limit-otlp.js';

/**
 * The recorded usage-limit session moved in time keeps its reset ahead of its failure at every
 * hour of the day: the e2e journey moves it to "a minute ago", and with the reset text left at
 * the recording's "3:17am" it read as already passed whenever the journey ran between 03:18 and
 * 04:18 UTC.
 */
describe('usageLimitSession moved in time', () => {
  const recorded = usageLimitSession();
  const recordedReset = parseUsageLimit(recorded.reported, { now: recorded.failedAt })?.resetAt as number;

  it('is the recording unchanged when not moved', () => {
    expect(recorded.reported).toBe("You've hit your 5-hour limit · resets 3:17am (UTC)");
    expect(recordedReset - recorded.failedAt).toBeGreaterThan(3_600_000);
  });

  it('keeps the recorded distance from failure to reset, to the minute, wherever the failure lands in the day', () => {
    for (let quarter = 0; quarter < 4 * 24 * 2; quarter++) {
      const shift = quarter * 15 * 60_000 + 37_123;
      const moved = usageLimitSession(shift);
      expect(moved.failedAt).toBe(recorded.failedAt + shift);
      const resetAt = parseUsageLimit(moved.reported, { now: moved.failedAt })?.resetAt as number;
      expect(Math.abs(resetAt - moved.failedAt - (recordedReset - recorded.failedAt)), `shift ${shift}: ${moved.reported}`).toBeLessThanOrEqual(30_000);
    }
  });

  it('writes the wall time as the CLI does, across noon and midnight', () => {
    const text = "You've hit your 5-hour limit · resets 3:17am (UTC)";
    expect(movedReset(text, 9 * 3_600_000)).toBe("You've hit your 5-hour limit · resets 12:17pm (UTC)");
    expect(movedReset(text, 21 * 3_600_000)).toBe("You've hit your 5-hour limit · resets 12:17am (UTC)");
    expect(movedReset(text, -4 * 3_600_000)).toBe("You've hit your 5-hour limit · resets 11:17pm (UTC)");
    expect(() => movedReset('no reset here', 60_000)).toThrow('no "resets h:mmam (UTC)" in the recorded result: no reset here');
  });
});
