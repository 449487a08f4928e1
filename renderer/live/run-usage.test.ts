import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../core/service/api.js';
import { applyToLiveRun } from './run-summary.js';

/** A live row's cost follows the run's attempt ends as the store sums them (core/store/rollups/usage-rollups.ts). */

const ref = { runId: 'r1', step: 1, ordinal: 0, taskId: '1:0' };
const events: HivewatchEvent[] = [
  {
    ...ref,
    seq: 1,
    ts: 1,
    type: 'runStarted',
    flow: 'f.prose',
    flowName: 'f',
    options: { maxSteps: 5, concurrency: 1, clock: 'real', defaultAgent: null },
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
  },
  { ...ref, seq: 2, ts: 2, type: 'attemptStarted', attempt: 1 },
  {
    ...ref,
    seq: 3,
    ts: 3,
    type: 'attemptFailed',
    attempt: 1,
    durationMs: 1,
    error: {
      code: 'RUNTIME_PROVIDER_ERROR',
      category: 'runtime',
      origin: 'runtime:claude-code',
      message: 'HTTP 500',
      recoverable: true,
      recoveryHint: null,
      context: {},
      timestamp: 3,
      correlation: {},
      cause: null,
    } as never,
    usage: { source: 'result', inputTokens: 1200, outputTokens: 80, costUsd: 0.17 },
  },
  { ...ref, seq: 4, ts: 4, type: 'attemptStarted', attempt: 2 },
  { ...ref, seq: 5, ts: 5, type: 'attemptSucceeded', attempt: 2, durationMs: 1, usage: { source: 'result', inputTokens: 1500, outputTokens: 240 } },
];

describe('live usage of a run row', () => {
  it('adds each attempt end: the failed share, and an attempt without a cost makes part of it unknown', () => {
    let live = undefined as ReturnType<typeof applyToLiveRun>;
    for (const event of events) live = applyToLiveRun(live, event);
    expect(live?.summary.usage).toEqual({
      attempts: 2,
      failedAttempts: 1,
      inputTokens: 2700,
      outputTokens: 320,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.17,
      failedCostUsd: 0.17,
      unknownCostAttempts: 1,
      countedIn: null,
    });
  });

  it('leaves a run whose attempts reported nothing without usage', () => {
    let live = undefined as ReturnType<typeof applyToLiveRun>;
    for (const event of events.map((e) => ('usage' in e ? { ...e, usage: undefined } : e)) as HivewatchEvent[]) live = applyToLiveRun(live, event);
    expect(live?.summary.usage).toBeUndefined();
  });

  it('leaves a run whose attempts reported only zeros (a refused request) without usage: nothing shown, never $0.00', () => {
    let live = undefined as ReturnType<typeof applyToLiveRun>;
    const zeros = { source: 'result' as const, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    for (const event of events.map((e) => ('usage' in e ? { ...e, usage: zeros } : e)) as HivewatchEvent[]) live = applyToLiveRun(live, event);
    expect(live?.summary.usage ?? null).toBeNull();
  });
});
