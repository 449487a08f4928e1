import { describe, expect, it } from 'vitest';
import { formatResetCountdown, formatResetTime, waitingSentence } from './usage-limit.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('the words of a usage-limit wait', () => {
  it('counts down in whole minutes, rounded up, so the text changes once a minute', () => {
    expect(formatResetCountdown(NOW + 12 * 60_000, NOW)).toBe('resets in 12 min');
    expect(formatResetCountdown(NOW + 11 * 60_000 + 1, NOW)).toBe('resets in 12 min');
    expect(formatResetCountdown(NOW + 12 * 60_000, NOW + 59_999)).toBe('resets in 12 min');
    expect(formatResetCountdown(NOW + 12 * 60_000, NOW + 60_000)).toBe('resets in 11 min');
    expect(formatResetCountdown(NOW + 65 * 60_000, NOW)).toBe('resets in 1 h 05 min');
    expect(formatResetCountdown(NOW + 120 * 60_000, NOW)).toBe('resets in 2 h');
    expect(formatResetCountdown(NOW + 30_000, NOW)).toBe('resets in less than a minute');
    expect(formatResetCountdown(NOW, NOW)).toBe('resets now');
    expect(formatResetCountdown(NOW - 5, NOW)).toBe('resets now');
  });

  it('names the reset as a time of day, with the date when it is a day or more away', () => {
    const at = NOW + 2 * 3_600_000 + 5 * 60_000;
    expect(formatResetTime(at, NOW)).toMatch(/^\d{2}:05$/);
    expect(waitingSentence(at, NOW)).toMatch(/^waiting for the usage limit to reset at \d{2}:05$/);
    expect(formatResetTime(NOW + 3 * 86_400_000, NOW)).toMatch(/^\d{1,2} Nov \d{2}:00$/);
  });
});
