import { describe, expect, it } from 'vitest';
import type { HivewatchApi } from '../../core/service/api.js';
import { takeRead } from '../lib/kept-reads.js';
import {
  askIssuePage,
  askIssueSections,
  readIssuePage,
  readOccurrences,
  readPeriodCost,
  readRetryCount,
  readRunsAffected,
  sectionKeys,
} from './issue-reads.js';

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
    getIssueDetail: answer('getIssueDetail'),
  } as unknown as HivewatchApi;
  return { api, asked };
}

const scope = { since: 1_000, until: 2_000 };

describe("an issue page's first reads", () => {
  it('are asked in one turn, and each section takes its own once', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'issue-a', scope);
    // Synchronously, so they travel in one batch with the issue's read; not the retry's count,
    // which reads every run of the issue and would hold the whole batch back.
    expect(asked).toEqual(['listRuns', 'listErrors', 'costSplit']);
    const occurrences = await takeRead(sectionKeys.occurrences('issue-a', scope), () => readOccurrences(api, 'issue-a', scope));
    expect(occurrences).toMatchObject({ method: 'listErrors', input: { fingerprint: 'issue-a', since: 1_000, until: 2_000, limit: 25 } });
    const runs = await takeRead(sectionKeys.runs('issue-a'), () => readRunsAffected(api, 'issue-a'));
    expect(runs).toMatchObject({ method: 'listRuns', input: { issue: 'issue-a', limit: 20 } });
    await takeRead(sectionKeys.cost('issue-a', scope), () => readPeriodCost(api, 'issue-a', scope));
    expect(asked).toHaveLength(3);
    // Taken once: a section reading again asks afresh.
    await takeRead(sectionKeys.cost('issue-a', scope), () => readPeriodCost(api, 'issue-a', scope));
    expect(asked.at(-1)).toBe('costSplit');
    expect(asked).toHaveLength(4);
  });

  it("count a retry's runs by the issue and the statuses a retry takes", async () => {
    const { api } = recordingApi();
    expect(await readRetryCount(api, 'issue-a')).toMatchObject({
      method: 'countRuns',
      input: { issue: 'issue-a', status: ['failed', 'cancelled', 'interrupted'] },
    });
  });

  it('are not handed to another period or issue', async () => {
    const { api, asked } = recordingApi();
    askIssueSections(api, 'issue-b', scope);
    await takeRead(sectionKeys.occurrences('issue-b', { since: 5_000 }), () => readOccurrences(api, 'issue-b', { since: 5_000 }));
    await takeRead(sectionKeys.runs('issue-c'), () => readRunsAffected(api, 'issue-c'));
    expect(asked.slice(3)).toEqual(['listErrors', 'listRuns']);
  });

  it('asked as the window opens on the page, are what the page takes: nothing asked twice', async () => {
    const { api, asked } = recordingApi();
    askIssuePage(api, 'issue-d', scope);
    expect(asked).toEqual(['getIssueDetail', 'listRuns', 'listErrors', 'costSplit']);
    expect(await readIssuePage(api, 'issue-d', scope)).toMatchObject({ method: 'getIssueDetail', input: { id: 'issue-d', since: 1_000, until: 2_000 } });
    await takeRead(sectionKeys.runs('issue-d'), () => readRunsAffected(api, 'issue-d'));
    expect(asked).toHaveLength(4);
  });

  it('asked for another period than the page reads (the minute turned), are asked again by the page, sections and all', async () => {
    const { api, asked } = recordingApi();
    askIssuePage(api, 'issue-e', scope);
    const later = { since: 61_000, until: 62_000 };
    expect(await readIssuePage(api, 'issue-e', later)).toMatchObject({ input: { id: 'issue-e', since: 61_000 } });
    expect(asked.slice(4)).toEqual(['listRuns', 'listErrors', 'costSplit', 'getIssueDetail']);
  });
});
