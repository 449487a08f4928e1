import { describe, expect, it } from 'vitest';
import { formatUsd, reportedNothing, runCostSummary, splitSummary, sumSpend, type SpendFigures } from './usage-format.js';

const spend = (over: Partial<SpendFigures>): SpendFigures => ({
  attempts: 1,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  unknownCostAttempts: 0,
  ...over,
});

describe('how a cost reads, the same in the CLI and the window', () => {
  it('writes cents, and fractions of a cent below one', () => {
    expect([0, 0.0042, 0.01, 2.575].map(formatUsd)).toEqual(['$0.00', '$0.0042', '$0.01', '$2.58']);
  });

  it('counts no attempt, or attempts that reported only zeros, as nothing reported', () => {
    expect(reportedNothing(spend({ attempts: 0 }))).toBe(true);
    expect(reportedNothing(spend({ attempts: 3 }))).toBe(true);
    expect(reportedNothing(spend({ cacheReadTokens: 1 }))).toBe(false);
    expect(reportedNothing(spend({ costUsd: 0.001 }))).toBe(false);
  });

  it('sums groups field by field', () => {
    const a = spend({ attempts: 2, inputTokens: 10, costUsd: 0.5, unknownCostAttempts: 1 });
    const b = spend({ attempts: 1, outputTokens: 7, cacheWriteTokens: 3, costUsd: 0.25 });
    expect(sumSpend([a, b])).toEqual({
      attempts: 3,
      inputTokens: 10,
      outputTokens: 7,
      cacheReadTokens: 0,
      cacheWriteTokens: 3,
      costUsd: 0.75,
      unknownCostAttempts: 1,
    });
    expect(sumSpend([])).toEqual(spend({ attempts: 0 }));
  });

  it('says a split and a run in words, and nothing for zeros', () => {
    const zero = spend({ attempts: 0 });
    expect(splitSummary({ failed: zero, retried: zero, succeeded: zero })).toBe('no usage reported');
    expect(splitSummary({ failed: spend({ costUsd: 1 }), retried: spend({ attempts: 2, costUsd: 0.5, unknownCostAttempts: 1 }), succeeded: zero })).toBe(
      '$1.50 + 1 attempt(s) of unknown cost = $1.00 failed runs + $0.50 + 1 attempt(s) of unknown cost retried attempts + $0.00 successful work',
    );
    expect(runCostSummary({ ...spend({ attempts: 2, costUsd: 0.42 }), failedCostUsd: 0.17 }, 'completed')).toBe('$0.42 · $0.17 retried · $0.25 successful');
    expect(runCostSummary({ ...spend({ attempts: 2 }), failedCostUsd: 0 }, 'failed')).toBe('no usage reported');
  });
});
