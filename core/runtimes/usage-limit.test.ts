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
    expect(parseUsageLimit('Claude AI usage limit reached|1795435200')).toEqual({ resetAt: 1_795_435_200_000, reported: 'Claude AI usage limit reached|1795435200' });
  });

  it('keeps the line that reports the limit, as written', () => {
    expect(parseUsageLimit('API Error: 429\n  5-hour limit reached ∙ resets 3pm  \nmore')?.reported).toBe('5-hour limit reached ∙ resets 3pm');
  });

  it('reads "try again in …" against the given now', () => {
    expect(parseResetTime('try again in 4 days 20 hours 9 minutes.', at)).toBe(NOW + 4 * 86_400_000 + 20 * 3_600_000 + 9 * 60_000);
    expect(parseResetTime('Please try again in 45 minutes', at)).toBe(NOW + 45 * 60_000);
  });

  it('reads a time of day as its next occurrence in the named zone, else the given zone', () => {
    expect(parseResetTime('resets 3pm', at)).toBe(Date.UTC(2026, 10, 23, 15, 0));
    expect(parseResetTime('resets 11am', at)).toBe(Date.UTC(2026, 10, 24, 11, 0));
    // Copenhagen is UTC+1 in November.
    expect(parseResetTime('resets 3pm (Europe/Copenhagen)', at)).toBe(Date.UTC(2026, 10, 23, 14, 0));
    expect(parseResetTime('Your limit will reset at 1pm (Etc/GMT+5)', at)).toBe(Date.UTC(2026, 10, 23, 18, 0));
    expect(parseResetTime('try again at 3:28 PM.', { now: NOW, timeZone: 'America/New_York' })).toBe(Date.UTC(2026, 10, 23, 20, 28));
    expect(parseResetTime('resets at 15:00 UTC', at)).toBe(Date.UTC(2026, 10, 23, 15, 0));
  });

  it('reads a date with a time, with or without a year', () => {
    expect(parseResetTime('try again at Aug 8th, 2027 12:30 PM.', at)).toBe(Date.UTC(2027, 7, 8, 12, 30));
    expect(parseResetTime('try again at Nov 25th, 1:05 AM.', at)).toBe(Date.UTC(2026, 10, 25, 1, 5));
    expect(parseResetTime('try again at Jan 2nd, 9:00 AM.', at)).toBe(Date.UTC(2027, 0, 2, 9, 0));
  });

  it('gives no reset time when none can be read, or when a relative one has no clock', () => {
    expect(parseUsageLimit("You've hit your usage limit. Try again later.", at)).toEqual({ resetAt: null, reported: "You've hit your usage limit. Try again later." });
    expect(parseResetTime('try again in 45 minutes')).toBeNull();
    expect(parseResetTime('resets 3pm (Not/AZone)', at)).toBeNull();
    expect(parseUsageLimit('API Error: Overloaded', at)).toBeNull();
  });
});
