import { describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_RETRY_DELAYS_MS } from '../../store/sink/sink.js';
import { DEFAULT_JOURNAL_RETRY_MS, DEFAULT_JOURNAL_WAIT_MS, journalRetryDelays, journalWaitMs, retryDelaysWithin } from './journal-env.js';

describe('the journal settings of a host (HIVEWATCH_JOURNAL_RETRY_MS, HIVEWATCH_JOURNAL_WAIT_MS)', () => {
  it('spreads a retry window over waits doubling from 100 ms to 3.2 s, the last one cut to fit', () => {
    expect(retryDelaysWithin(6_300)).toEqual([...DEFAULT_WRITE_RETRY_DELAYS_MS]);
    expect(retryDelaysWithin(250)).toEqual([100, 150]);
    expect(retryDelaysWithin(0)).toEqual([]);
    expect(retryDelaysWithin(30_000).reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(Math.max(...retryDelaysWithin(30_000))).toBe(3_200);
  });

  it('reads the variables, defaults when unset, and refuses what is no number of milliseconds', () => {
    // Unset: two minutes, an ordinary restart or failover (a run waits through it rather than fails).
    expect(DEFAULT_JOURNAL_RETRY_MS).toBe(120_000);
    expect(journalRetryDelays({}).reduce((a, b) => a + b, 0)).toBe(120_000);
    expect(journalRetryDelays({ HIVEWATCH_JOURNAL_RETRY_MS: ' ' })).toEqual(journalRetryDelays({}));
    expect(journalRetryDelays({ HIVEWATCH_JOURNAL_RETRY_MS: '300' })).toEqual([100, 200]);
    expect(journalWaitMs({})).toBe(DEFAULT_JOURNAL_WAIT_MS);
    expect(journalWaitMs({ HIVEWATCH_JOURNAL_WAIT_MS: ' 1500 ' })).toBe(1_500);
    expect(() => journalWaitMs({ HIVEWATCH_JOURNAL_WAIT_MS: '5m' })).toThrow('HIVEWATCH_JOURNAL_WAIT_MS must be a whole number of milliseconds, got "5m"');
    expect(() => journalRetryDelays({ HIVEWATCH_JOURNAL_RETRY_MS: '-1' })).toThrow(
      'HIVEWATCH_JOURNAL_RETRY_MS must be a whole number of milliseconds, got "-1"',
    );
  });
});
