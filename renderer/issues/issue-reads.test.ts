import { describe, expect, it } from 'vitest';
import type { HivewatchApi } from '../../core/service/api.js';
import { takeRead } from '../lib/kept-reads.js';
import { askIssueSections, readOccurrences, readPeriodCost, readRunsAffected, sectionKeys } from './issue-reads.js';

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

describe("an issue page's first reads", () => {
  it('are asked in one turn, and each section takes its own once', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'issue-a', scope);
    // Synchronously, so they travel in one batch with the issue's read.
    expect(asked).toEqual(['listRuns', 'countRuns', 'listErrors', 'costSplit']);
    const occurrences = await takeRead(sectionKeys.occurrences('issue-a', scope), () => readOccurrences(api, 'issue-a', scope));
    expect(occurrences).toMatchObject({ method: 'listErrors', input: { fingerprint: 'issue-a', since: 1_000, until: 2_000, limit: 25 } });
    const runs = await takeRead(sectionKeys.runs('issue-a'), () => readRunsAffected(api, 'issue-a'));
    expect(runs.counts).toMatchObject({ method: 'countRuns', input: { issue: 'issue-a', status: ['failed', 'cancelled', 'interrupted'] } });
    await takeRead(sectionKeys.cost('issue-a', scope), () => readPeriodCost(api, 'issue-a', scope));
    expect(asked).toHaveLength(4);
    // Taken once: a section reading again asks afresh.
    await takeRead(sectionKeys.cost('issue-a', scope), () => readPeriodCost(api, 'issue-a', scope));
    expect(asked.at(-1)).toBe('costSplit');
    expect(asked).toHaveLength(5);
  });

  it('are not handed to another period or issue', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'issue-b', scope);
    await takeRead(sectionKeys.occurrences('issue-b', { since: 5_000 }), () => readOccurrences(api, 'issue-b', { since: 5_000 }));
    await takeRead(sectionKeys.runs('issue-c'), () => readRunsAffected(api, 'issue-c'));
    expect(asked.slice(4)).toEqual(['listErrors', 'listRuns', 'countRuns']);
  });
});
