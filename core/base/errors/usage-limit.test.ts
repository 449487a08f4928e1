import { describe, expect, it } from 'vitest';
import { isUsageLimitText, parseResetTime, parseUsageLimit } from './usage-limit.js';

// 2026-11-23T12:00:00Z, a Monday.
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const at = { now: NOW, timeZone: 'UTC' };

describe('usage-limit texts', () => {
  it('recognises the wordings of both CLIs and nothing else', () => {
    for (const text of [
      'Claude AI usage limit reached|1795435200',
      '5-hour limit reached ∙ resets 3pm',
      "You've reached your session limit · resets 3pm (Europe/Copenhagen)",
      "You've hit your usage limit. Upgrade to Pro or try again in 4 days 20 hours 9 minutes.",
    ]) {
      expect(isUsageLimitText(text), text).toBe(true);
    }
    for (const text of ['API Error: 429 rate_limit_error', 'Overloaded', 'error_max_turns', 'context window limit']) {
      expect(isUsageLimitText(text), text).toBe(false);
    }
  });

  it('reads an epoch reset time (seconds) without a clock', () => {
    expect(parseUsageLimit('Claude AI usage limit reached|1795435200')).toEqual({
      resetAt: 1_795_435_200_000,
      reported: 'Claude AI usage limit reached|1795435200',
    });
  });

  it('keeps the line that reports the limit, as written', () => {
    expect(parseUsageLimit('API Error: 429\n  5-hour limit reached ∙ resets 3pm  \nmore')?.reported).toBe('5-hour limit reached ∙ resets 3pm');
  });

  it('reads "try again in …" against the given now, a duration to the minute to the end of its last minute', () => {
    expect(parseResetTime('try again in 4 days 20 hours 9 minutes.', at)).toBe(NOW + 4 * 86_400_000 + 20 * 3_600_000 + 10 * 60_000);
    expect(parseResetTime('Please try again in 45 minutes', at)).toBe(NOW + 46 * 60_000);
    expect(parseResetTime('try again in 2 hours', at)).toBe(NOW + 2 * 3_600_000);
    expect(parseResetTime('try again in 1 minute 30 seconds', at)).toBe(NOW + 90_000);
  });

  it('reads a time of day, given to the minute, as the end of that minute, in the named zone, else the given zone', () => {
    expect(parseResetTime('resets 3pm', at)).toBe(Date.UTC(2026, 10, 23, 15, 1));
    // Copenhagen is UTC+1 in November.
    expect(parseResetTime('resets 3pm (Europe/Copenhagen)', at)).toBe(Date.UTC(2026, 10, 23, 14, 1));
    expect(parseResetTime('Your limit will reset at 1pm (Etc/GMT+5)', at)).toBe(Date.UTC(2026, 10, 23, 18, 1));
    expect(parseResetTime('try again at 3:28 PM.', { now: NOW, timeZone: 'America/New_York' })).toBe(Date.UTC(2026, 10, 23, 20, 29));
    expect(parseResetTime('resets at 15:00 UTC', at)).toBe(Date.UTC(2026, 10, 23, 15, 1));
  });

  it("a time of day well before the moment it was printed is tomorrow's; one just passed is today's, never tomorrow's", () => {
    expect(parseResetTime('resets 10am', at)).toBe(Date.UTC(2026, 10, 24, 10, 1));
    expect(parseResetTime('resets 2:34am (UTC)', { now: Date.UTC(2026, 10, 23, 22, 0), timeZone: 'UTC' })).toBe(Date.UTC(2026, 10, 24, 2, 35));
    // The provider's reset 22:28:40, printed "10:28 PM"; the text read at 22:28:03 is not tomorrow's 22:28.
    const printed = { now: Date.UTC(2026, 10, 23, 22, 28, 3), timeZone: 'UTC' };
    expect(parseResetTime('try again at 10:28 PM.', printed)).toBe(Date.UTC(2026, 10, 23, 22, 29));
    // This machine's clock a few minutes ahead of the provider's: the reset has passed, it is today's.
    expect(parseResetTime('try again at 10:28 PM.', { now: Date.UTC(2026, 10, 23, 22, 33, 0), timeZone: 'UTC' })).toBe(Date.UTC(2026, 10, 23, 22, 29));
    expect(parseResetTime('resets 11am', at)).toBe(Date.UTC(2026, 10, 23, 11, 1));
    expect(parseResetTime('resets 10:59am', at)).toBe(Date.UTC(2026, 10, 24, 11, 0));
  });

  it('reads a date with a time, with or without a year, to the end of its minute', () => {
    expect(parseResetTime('try again at Aug 8th, 2027 12:30 PM.', at)).toBe(Date.UTC(2027, 7, 8, 12, 31));
    expect(parseResetTime('try again at Nov 25th, 1:05 AM.', at)).toBe(Date.UTC(2026, 10, 25, 1, 6));
    expect(parseResetTime('try again at Jan 2nd, 9:00 AM.', at)).toBe(Date.UTC(2027, 0, 2, 9, 1));
  });

  it('gives no reset time when none can be read, or when a relative one has no clock', () => {
    expect(parseUsageLimit("You've hit your usage limit. Try again later.", at)).toEqual({
      resetAt: null,
      reported: "You've hit your usage limit. Try again later.",
    });
    expect(parseResetTime('try again in 45 minutes')).toBeNull();
    expect(parseResetTime('resets 3pm (Not/AZone)', at)).toBeNull();
    expect(parseUsageLimit('API Error: Overloaded', at)).toBeNull();
  });
});
