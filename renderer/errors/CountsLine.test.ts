import { describe, expect, it } from 'vitest';
import { headerCounts } from './CountsLine.js';

describe('the Errors header’s counts (rule 17)', () => {
  it('failures come from failureCounts; occurrences are every disposition together, pending included', () => {
    const byHandled = [
      { key: 'handled', count: 8 },
      { key: 'unhandled', count: 3 },
      { key: 'pending', count: 2 },
    ];
    expect(headerCounts(byHandled, 3)).toEqual({ failures: 3, occurrences: 13, handled: 8, unhandled: 3, pending: 2 });
    expect(headerCounts([], 0)).toEqual({ failures: 0, occurrences: 0, handled: 0, unhandled: 0, pending: 0 });
  });
});
