import { describe, expect, it } from 'vitest';
import { boundedId, boundedText, cleanText, FUTURE_SLACK_MS, MAX_DURATION_MS, saneDuration, saneTime } from './bounds.js';

const ARRIVED = Date.UTC(2026, 10, 25, 12);

describe("the receiver's bounds", () => {
  it('keeps a sane time, and replaces one before 2000, more than a day ahead or past a fixed64 by the arrival time, saying why', () => {
    expect(saneTime(ARRIVED - 5_000, '1', 'timeUnixNano', ARRIVED)).toEqual({ ts: ARRIVED - 5_000, adjustment: null });
    expect(saneTime(ARRIVED + FUTURE_SLACK_MS, '1', 'timeUnixNano', ARRIVED).adjustment).toBeNull();
    expect(saneTime(0, null, 'timeUnixNano', ARRIVED)).toEqual({ ts: ARRIVED, adjustment: null });
    expect(saneTime(ARRIVED + FUTURE_SLACK_MS + 1, '99', 'timeUnixNano', ARRIVED)).toEqual({
      ts: ARRIVED,
      adjustment: { field: 'timeUnixNano', given: '99', used: ARRIVED, reason: 'more than a day after it arrived: recorded at the time it arrived' },
    });
    expect(saneTime(Date.UTC(1999, 11, 31), '1', 'startTimeUnixNano', ARRIVED).adjustment?.reason).toMatch(/^before 2000-01-01/);
    expect(saneTime(Number.NaN, '1'.repeat(40), 'timeUnixNano', ARRIVED).adjustment?.reason).toMatch(/^more nanoseconds than a fixed64 holds/);
  });

  it('counts a duration that is negative, not finite or longer than a day as 0 ms', () => {
    expect(saneDuration(1200.4, 'd')).toEqual({ ms: 1200, adjustment: null });
    expect(saneDuration(null, 'd')).toEqual({ ms: 0, adjustment: null });
    for (const [given, reason] of [
      [-5, 'negative'],
      [1e308, 'longer than a day'],
      [Number.POSITIVE_INFINITY, 'not a finite number'],
      [MAX_DURATION_MS + 1, 'longer than a day'],
    ] as const) {
      expect(saneDuration(given, 'd')).toEqual({ ms: 0, adjustment: { field: 'd', given: String(given), used: 0, reason: `${reason}: counted as 0 ms` } });
    }
  });

  it('cleans NUL and unpaired surrogates, keeps pairs', () => {
    expect(cleanText('a\u0000b\uD800c\uDC00d\uD83D\uDE00')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uD83D\uDE00');
    // The same regexps serve every call (a global one used for testing would skip every other match).
    expect([cleanText('\uD800'), cleanText('\uD800'), cleanText('\uD800')]).toEqual(['\uFFFD', '\uFFFD', '\uFFFD']);
    expect(cleanText('plain')).toBe('plain');
  });

  it('shortens a long id to its head and digest, the same id the same way every time', () => {
    const long = 'x'.repeat(1024 * 1024);
    const first = boundedId(long, 'session.id');
    expect(first.value).toMatch(/^x{216}\.sha256-[0-9a-f]{32}$/);
    expect(first.value).toHaveLength(256);
    expect(boundedId(long, 'session.id').value).toBe(first.value);
    expect(boundedId(`${long}y`, 'session.id').value).not.toBe(first.value);
    expect(first.adjustment).toMatchObject({
      field: 'session.id',
      given: `${'x'.repeat(120)}… (1048576 characters)`,
      reason: 'longer than 256 characters: shortened, with its digest',
    });
    expect(boundedId('short', 'session.id')).toEqual({ value: 'short', adjustment: null });
    expect(boundedId('a\u0000b', 'session.id')).toMatchObject({ value: 'a\uFFFDb', adjustment: { reason: 'NUL or unpaired surrogate replaced by U+FFFD' } });
  });

  it('cuts a long message and says so', () => {
    const cut = boundedText('m'.repeat(20_000), 'attributes.error');
    expect(cut.value).toBe(`${'m'.repeat(16_384)}…`);
    expect(cut.adjustment?.reason).toBe('longer than 16384 characters: cut');
    expect(boundedText('fine', 'attributes.error')).toEqual({ value: 'fine', adjustment: null });
  });
});
