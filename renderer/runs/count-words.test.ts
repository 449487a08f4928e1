import { describe, expect, it } from 'vitest';
import type { RunCounts } from '../../core/service/api.js';
import { chipCount, countLabel, exactTotal, matchingLine } from './count-words.js';

const exact: RunCounts = { total: 1, byStatus: { failed: 1 }, byFlow: [{ flow: 'a.prose', flowName: 'a', count: 1 }] };
const capped: RunCounts = {
  total: 2_001,
  byStatus: { failed: 1_204, completed: 797 },
  byFlow: [{ flow: 'a.prose', flowName: 'a', count: 2_001 }],
  atLeast: true,
};

describe('the words of the run counts', () => {
  it('says an exact count as it is', () => {
    expect(matchingLine(exact, true)).toBe('1 run matches');
    expect(matchingLine({ ...exact, total: 1_000_000 }, false)).toBe('1,000,000 runs');
    expect(chipCount(exact, 'failed')).toBe('1');
    expect(chipCount(exact, 'running')).toBe('0');
    expect(exactTotal(exact)).toBe(1);
  });

  it('says a capped count is a lower bound, everywhere it shows', () => {
    expect(matchingLine(capped, true)).toBe('at least 2,001 runs match');
    expect(chipCount(capped, 'failed')).toBe('1,204+');
    expect(chipCount(capped, 'running')).toBe('–');
    expect(countLabel(capped, 2_001)).toBe('2,001+');
    // "Select all N matching" needs an exact N.
    expect(exactTotal(capped)).toBeNull();
  });

  it('shows an ellipsis before the first answer', () => {
    expect(chipCount(null, 'failed')).toBe('…');
    expect(exactTotal(null)).toBeNull();
  });
});
