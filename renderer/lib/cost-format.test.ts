import { describe, expect, it } from 'vitest';
import type { UsageTotalsView } from '../../core/service/api.js';
import { runCost, runCostLine } from './cost-format.js';

/** A run's cost by outcome, and nothing where nothing was reported (docs/triage.md "What failure costs"). */

const usage = (over: Partial<UsageTotalsView> = {}): UsageTotalsView => ({
  attempts: 2,
  failedAttempts: 1,
  inputTokens: 2700,
  outputTokens: 320,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.42,
  failedCostUsd: 0.17,
  unknownCostAttempts: 0,
  ...over,
});

describe('a run’s cost', () => {
  it('splits a run that went on, and gives all of a failed run’s spend to its failure', () => {
    expect(runCostLine(usage(), 'completed')).toBe('$0.42 · $0.17 retried · $0.25 successful');
    expect(runCostLine(usage(), 'failed')).toBe('$0.42 · failed run');
    expect(runCostLine(usage({ failedAttempts: 0, failedCostUsd: 0, costUsd: 0.25 }), 'completed')).toBe('$0.25');
    expect(runCost(usage(), 'running')?.sentence).toBe('$0.42: $0.17 on failed attempts the run went on from, $0.25 on successful ones.');
  });

  it('shows nothing for a run that reported only zeros, and "cost unknown" for tokens without a price, never $0.00', () => {
    expect(runCostLine(usage({ inputTokens: 0, outputTokens: 0, costUsd: 0, failedCostUsd: 0 }), 'completed')).toBeNull();
    expect(runCostLine(usage({ attempts: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, failedCostUsd: 0, failedAttempts: 0 }), 'failed')).toBeNull();
    expect(runCostLine(usage({ costUsd: 0, failedCostUsd: 0, unknownCostAttempts: 2 }), 'completed')).toBe('cost unknown');
    expect(runCostLine(usage({ costUsd: 0, failedCostUsd: 0, unknownCostAttempts: 2 }), 'failed')).toBe('cost unknown · failed run');
    expect(runCostLine(usage({ unknownCostAttempts: 1 }), 'completed')).toBe('$0.42 + unknown · $0.17 retried · $0.25 successful');
  });
});
