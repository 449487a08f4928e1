import { describe, expect, it } from 'vitest';
import type { HivewatchApi } from '../../core/service/api.js';
import { askIssueSections, readOccurrences, readPeriodCost, readRunsAffected, sectionKeys, takeOr } from './issue-reads.js';

/** An api that answers each read with its own name and input, recording the order asked. */
function recordingApi() {
  const asked: string[] = [];
  const answer = (method: string) => (input: unknown) => {
    asked.push(method);
    return Promise.resolve({ method, input, items: [], nextCursor: null });
  };
  const api = {
    listRuns: answer('listRuns'),
    countRuns: answer('countRuns'),
    listErrors: answer('listErrors'),
    costSplit: answer('costSplit'),
  } as unknown as HivewatchApi;
  return { api, asked };
}

const scope = { since: 1_000, until: 2_000 };

describe("an issue page's section reads", () => {
  it('are all asked in the turn that asks the issue, and each is taken once', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'abc123', scope);
    // Synchronously, so they travel in one batch with the issue's read.
    expect(asked).toEqual(['listRuns', 'countRuns', 'listErrors', 'costSplit']);
    const occurrences = await takeOr(sectionKeys.occurrences('abc123', scope), () => readOccurrences(api, 'abc123', scope));
    expect(occurrences).toMatchObject({ method: 'listErrors', input: { fingerprint: 'abc123', since: 1_000, until: 2_000, limit: 25 } });
    const runs = await takeOr(sectionKeys.runs('abc123'), () => readRunsAffected(api, 'abc123'));
    expect(runs.counts).toMatchObject({ method: 'countRuns', input: { issue: 'abc123', status: ['failed', 'cancelled', 'interrupted'] } });
    await takeOr(sectionKeys.cost('abc123', scope), () => readPeriodCost(api, 'abc123', scope));
    expect(asked).toHaveLength(4);
    // Taken once: a section reading again asks afresh.
    await takeOr(sectionKeys.cost('abc123', scope), () => readPeriodCost(api, 'abc123', scope));
    expect(asked).toEqual(['listRuns', 'countRuns', 'listErrors', 'costSplit', 'costSplit']);
  });

  it('kept for another period or issue are not handed out', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'abc123', scope);
    await takeOr(sectionKeys.occurrences('abc123', { since: 5_000 }), () => readOccurrences(api, 'abc123', { since: 5_000 }));
    await takeOr(sectionKeys.runs('def456'), () => readRunsAffected(api, 'def456'));
    expect(asked.slice(4)).toEqual(['listErrors', 'listRuns', 'countRuns']);
  });

  it('that fail with nobody to take them raise no unhandled rejection', async () => {
    const failing = {
      listRuns: () => Promise.reject(new Error('away')),
      countRuns: () => Promise.reject(new Error('away')),
      listErrors: () => Promise.reject(new Error('away')),
      costSplit: () => Promise.reject(new Error('away')),
    } as unknown as HivewatchApi;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      askIssueSections(failing, 'abc123', scope);
      // A new page clears what the last one kept.
      askIssueSections(recordingApi().api, 'def456', scope);
      for (let i = 0; i < 10; i++) await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
