import { describe, expect, it } from 'vitest';
import { clockTime, staleWords } from './stale-words.js';

const NOW = new Date(2026, 10, 26, 14, 5, 0).getTime();
const AT = new Date(2026, 10, 26, 14, 3, 12).getTime();

describe('a screen that says its data is out of date, and since when', () => {
  it('says what it still shows, read when, after a failed read', () => {
    expect(staleWords({ downSince: null, failed: { error: 'Failed to fetch', loadedAt: AT }, showing: 'Last 24 hours' }, NOW)).toBe(
      'Out of date: showing Last 24 hours read at 14:03:12; refreshing failed (Failed to fetch).',
    );
    expect(staleWords({ downSince: null, failed: { error: 'Failed to fetch', loadedAt: AT } }, NOW)).toBe(
      'Out of date: showing what was read at 14:03:12; refreshing failed (Failed to fetch).',
    );
  });

  it('says since when it is not live while the stream is down; nothing while all is well', () => {
    expect(staleWords({ downSince: AT, failed: null }, NOW)).toBe('Out of date: not live since 14:03:12; what this screen shows may have changed since.');
    expect(staleWords({ downSince: null, failed: null }, NOW)).toBeNull();
  });

  it('gives the date of a time on another day', () => {
    expect(clockTime(new Date(2026, 10, 24, 9, 30, 5).getTime(), NOW)).toBe('2026-11-24 09:30');
    expect(clockTime(AT, NOW)).toBe('14:03:12');
  });
});
