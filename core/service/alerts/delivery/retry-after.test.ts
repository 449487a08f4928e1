import { describe, expect, it } from 'vitest';
import { parseHttpDate, retryAfterMs, retryWait } from './retry-after.js';

/**
 * Retry-After as RFC 9110 §10.2.3 defines it (delay-seconds or an HTTP-date, the date in any of
 * the three forms of §5.6.7), measured from the answer's Date when there is one.
 */

const NOW = Date.UTC(2026, 10, 26, 14, 5, 0);
const MINUTE = 60_000;

describe('parseHttpDate', () => {
  it('reads the IMF-fixdate, the obsolete RFC 850 and asctime forms of one instant', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(at);
  });

  it('places a two-digit year at most 50 years ahead of now', () => {
    expect(parseHttpDate('Thursday, 26-Nov-26 14:06:00 GMT', NOW)).toBe(NOW + MINUTE);
    expect(parseHttpDate('Friday, 01-Jan-99 00:00:00 GMT', NOW)).toBe(Date.UTC(1999, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1));
  });

  it('refuses what is not an HTTP-date, and dates that do not exist', () => {
    for (const text of [
      '2026-11-26T14:05:00Z',
      'Thu, 26 Nov 2026 14:05:00 UTC',
      'Thu, 26 Nov 2026 14:05:00',
      'tomorrow',
      '',
      'Tue, 31 Feb 2026 10:00:00 GMT',
      'Thu, 26 Nov 2026 24:00:00 GMT',
    ]) {
      expect(parseHttpDate(text, NOW), text).toBeNull();
    }
  });
});

describe('retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('30', undefined, NOW)).toBe(30_000);
    expect(retryAfterMs(' 0 ', undefined, NOW)).toBe(0);
  });

  it("measures a date from the answer's Date, so a receiver's skewed clock still gets the wait it meant", () => {
    // The receiver's clock is an hour behind ours; it asks for two minutes.
    expect(retryAfterMs('Thu, 26 Nov 2026 13:07:00 GMT', 'Thu, 26 Nov 2026 13:05:00 GMT', NOW)).toBe(2 * MINUTE);
    // No Date (or a bad one): from our clock.
    expect(retryAfterMs('Thu, 26 Nov 2026 14:07:00 GMT', undefined, NOW)).toBe(2 * MINUTE);
    expect(retryAfterMs('Thu, 26 Nov 2026 14:07:00 GMT', 'yesterday', NOW)).toBe(2 * MINUTE);
  });

  it('takes a date in the past as no wait, and anything else as nothing asked', () => {
    expect(retryAfterMs('Thu, 26 Nov 2026 14:00:00 GMT', undefined, NOW)).toBe(0);
    for (const text of ['-5', '1.5', '30s', 'soon', '']) expect(retryAfterMs(text, undefined, NOW), text).toBeNull();
    expect(retryAfterMs(undefined, undefined, NOW)).toBeNull();
  });
});

describe('retryWait', () => {
  const CAP = 30 * MINUTE;

  it('waits at least the backoff and at least what was asked', () => {
    expect(retryWait(10_000, 30_000, CAP)).toEqual({ delayMs: 30_000, note: 'asked to wait 30 s' });
    expect(retryWait(10_000, 2_000, CAP)).toEqual({ delayMs: 10_000, note: 'asked to wait 2 s' });
    expect(retryWait(10_000, null, CAP)).toEqual({ delayMs: 10_000, note: null });
  });

  it("never waits past the policy's longest delay, and says so", () => {
    expect(retryWait(10_000, 86_400_000, CAP)).toEqual({ delayMs: CAP, note: 'asked to wait 86400 s; waiting the 1800 s cap' });
    expect(retryWait(10_000, Infinity, CAP)).toEqual({ delayMs: CAP, note: 'asked to wait more than 1800 s; waiting the 1800 s cap' });
  });
});
