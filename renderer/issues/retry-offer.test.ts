import { describe, expect, it } from 'vitest';
import { retryOffer } from './retry-offer.js';

/**
 * "Retry these N runs" names exactly the runs the bulk retry takes: an exact count within the
 * bulk bound; a lower bound (a count that stopped at its cap) or more than the bound is no button.
 */
describe('the issue page’s retry offer', () => {
  it('names the exact count, including one counted again under every filter past the breakdowns’ cap', () => {
    expect(retryOffer({ total: 2_382, atLeast: true, totalExact: true })).toEqual({ kind: 'retry', runs: 2_382, label: 'Retry these 2,382 runs' });
    expect(retryOffer({ total: 1 })).toEqual({ kind: 'retry', runs: 1, label: 'Retry these 1 run' });
    expect(retryOffer({ total: 10_000 })).toMatchObject({ kind: 'retry', label: 'Retry these 10,000 runs' });
  });

  it('offers no button for a lower bound or more than one bulk retry takes', () => {
    expect(retryOffer({ total: 10_001, atLeast: true })).toEqual({
      kind: 'tooMany',
      note: 'at least 10,001 runs to retry: more than one bulk retry takes (10,000); narrow them in Runs and retry in parts',
    });
    expect(retryOffer({ total: 1_001, atLeast: true })).toEqual({ kind: 'tooMany', note: 'at least 1,001 runs to retry; open them in Runs to retry them' });
    expect(retryOffer({ total: 10_001, atLeast: true, totalExact: true })).toMatchObject({
      kind: 'tooMany',
      note: expect.stringMatching(/^10,001 runs to retry/),
    });
  });

  it('offers nothing when no run is to retry', () => {
    expect(retryOffer({ total: 0 })).toEqual({ kind: 'none' });
  });
});
