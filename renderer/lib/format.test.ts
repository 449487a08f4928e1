import { describe, expect, it } from 'vitest';
import {
  formatAbsolute,
  formatCount,
  formatCountdown,
  formatDelay,
  formatDuration,
  formatPast,
  formatRelative,
  formatRunDuration,
  isoTime,
  isShowableTime,
  plural,
  runDurationParts,
} from './format.js';

const NOW = Date.UTC(2025, 10, 22, 12, 0, 0);

describe('formatRelative', () => {
  it.each([
    [0, 'just now'],
    [4_999, 'just now'],
    [5_000, '5s ago'],
    [59_999, '59s ago'],
    [60_000, '1 min ago'],
    [3_599_999, '59 min ago'],
    [3_600_000, '1 h ago'],
    [86_399_999, '23 h ago'],
    [86_400_000, '1 d ago'],
  ])('%i ms ago reads "%s"', (ago, text) => {
    expect(formatRelative(NOW - ago, NOW)).toBe(text);
  });

  it('reads times ahead as "in …"', () => {
    expect(formatRelative(NOW + 30_000, NOW)).toBe('in 30s');
    expect(formatRelative(NOW + 2_000, NOW)).toBe('in a moment');
    expect(formatRelative(NOW + 2 * 3_600_000, NOW)).toBe('in 2 h');
  });

  it('falls back to the date beyond two months', () => {
    expect(formatRelative(NOW - 90 * 86_400_000, NOW)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('formatAbsolute', () => {
  it('is local time with milliseconds', () => {
    const d = new Date(2025, 0, 2, 3, 4, 5, 6).getTime();
    expect(formatAbsolute(d)).toBe('2025-01-02 03:04:05.006');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [1_000, '1.0s'],
    [12_345, '12s'],
    [9_999, '9.9s'],
    [245_000, '4m 05s'],
    [3_720_000, '1h 02m'],
    [100_000_000, '1d 3h'],
  ])('%i ms is "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
  it('shows a dash for nonsense', () => {
    expect(formatDuration(-1)).toBe('—');
    expect(formatDuration(Number.NaN)).toBe('—');
  });
});

describe('formatDelay', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1_500, '1.5s'],
    [2_000, '2s'],
    [30_000, '30s'],
    [120_000, '2m'],
    [90_000, '1m30s'],
    [300_000, '5m'],
    [3_600_000, '1h'],
    [3_562_568, '59m22.568s'],
    [3_600_250, '1h0.25s'],
    [61_001, '1m1.001s'],
  ])('%i ms is "%s"', (ms, text) => {
    expect(formatDelay(ms)).toBe(text);
  });
});

describe('formatCountdown', () => {
  it('counts down in whole seconds, rounding up', () => {
    expect(formatCountdown(NOW + 22_100, NOW)).toBe('in 23s');
    expect(formatCountdown(NOW + 65_000, NOW)).toBe('in 1m 05s');
    expect(formatCountdown(NOW + 3_660_000, NOW)).toBe('in 1h 01m');
    expect(formatCountdown(NOW, NOW)).toBe('now');
    expect(formatCountdown(NOW - 5, NOW)).toBe('now');
  });
});

describe('small helpers', () => {
  it('pluralizes', () => {
    expect(plural(1, 'run')).toBe('1 run');
    expect(plural(10_000, 'run')).toBe('10,000 runs');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
  });

  it('writes every count as toLocaleString("en-US") does, from one formatter', () => {
    for (const n of [0, 1, 999, 1_000, 1_234_567, -42, 12.5, 0.1234, 1e21, Number.NaN, Number.POSITIVE_INFINITY])
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    expect(formatCount(1_234_567)).toBe('1,234,567');
  });
});

describe('times of a virtual-clock run', () => {
  it('a past event is never shown in the future', () => {
    expect(formatPast(NOW + 234_000, NOW)).toBe('just now');
    expect(formatPast(NOW - 120_000, NOW)).toBe('2 min ago');
  });

  it('durations label the virtual clock and show the real one beside it', () => {
    const virtual = { clock: 'virtual', startedAt: NOW + 60_000, endedAt: NOW + 60_000 + 234_000, startedWall: NOW - 900, endedWall: NOW } as const;
    expect(formatRunDuration(virtual, NOW)).toBe('virtual 3m 54s · real 900 ms');
    expect(formatRunDuration({ ...virtual, endedAt: null, endedWall: null }, NOW + 1_500)).toBe('virtual clock · real 2.4s');
    expect(runDurationParts(virtual, NOW)).toEqual({ real: '900 ms', virtual: '3m 54s' });
    const real = { clock: 'real', startedAt: NOW - 5_000, endedAt: null, startedWall: NOW - 5_000, endedWall: null } as const;
    expect(formatRunDuration(real, NOW)).toBe('5.0s');
    expect(formatRunDuration({ ...real, endedAt: NOW - 4_000 }, NOW)).toBe('1.0s');
  });
});

describe('times no Date can show', () => {
  it.each([9e15, -9e15, 1e31, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_VALUE])('%s is labelled, never thrown on', (ts) => {
    expect(isShowableTime(ts)).toBe(false);
    expect(isoTime(ts)).toBeUndefined();
    expect(formatAbsolute(ts)).toBe(`invalid time (${String(ts)})`);
    expect(formatRelative(ts, NOW)).toBe(`invalid time (${String(ts)})`);
    expect(formatPast(ts, NOW)).toBe(`invalid time (${String(ts)})`);
    expect(() => formatCountdown(ts, NOW)).not.toThrow();
    expect(() => formatDuration(ts - NOW)).not.toThrow();
  });
  it('shows the edges of the range and dates far from now', () => {
    expect(isoTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTime(Date.UTC(2300, 0, 1))).toBe('2300-01-01T00:00:00.000Z');
    expect(formatRelative(Date.UTC(2300, 0, 1), NOW)).toMatch(/^2299-12-31|^2300-01-01/);
  });
});
