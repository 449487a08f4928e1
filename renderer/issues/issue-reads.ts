import type { CostSplitAnswerView, ErrorOccurrence, HivewatchApi, IssueScope, Page, RunCounts, RunStatus, RunSummary } from '../../core/service/api.js';
import { keepRead } from '../lib/kept-reads.js';

/**
 * What an issue's page sections read first — the runs it hit with how many a retry takes, its
 * occurrences, its cost in the period — each defined once here, and asked early
 * (lib/kept-reads.ts): the page asks them in the same turn as the issue itself
 * (`askIssueSections`), so all travel in one batch, and each section takes its answer when it
 * mounts with the issue. Asked by the sections alone, after the issue's answer had been drawn,
 * they were two more round trips before the page was whole. A section that reads again (a
 * refresh, a retry) asks afresh.
 */

/** What a bulk retry takes (its refusals say why it takes no other). */
export const RETRYABLE: RunStatus[] = ['failed', 'cancelled', 'interrupted'];
export const RUNS_PAGE = 20;
export const OCCURRENCES_PAGE = 25;

export interface RunsAffectedRead {
  page: Page<RunSummary>;
  counts: RunCounts;
}

export function readRunsAffected(api: HivewatchApi, issueId: string): Promise<RunsAffectedRead> {
  return Promise.all([api.listRuns({ issue: issueId, limit: RUNS_PAGE }), api.countRuns({ issue: issueId, status: RETRYABLE })]).then(([page, counts]) => ({
    page,
    counts,
  }));
}

export function occurrencesFilter(issueId: string, scope: IssueScope): IssueScope & { fingerprint: string } {
  return { ...scope, fingerprint: issueId };
}

export function readOccurrences(api: HivewatchApi, issueId: string, scope: IssueScope): Promise<Page<ErrorOccurrence>> {
  return api.listErrors({ ...occurrencesFilter(issueId, scope), limit: OCCURRENCES_PAGE });
}

export function periodCostAsk(issueId: string, scope: IssueScope): { issue: string; since?: number; until?: number } {
  return { issue: issueId, ...(scope.since !== undefined ? { since: scope.since } : {}), ...(scope.until !== undefined ? { until: scope.until } : {}) };
}

export function readPeriodCost(api: HivewatchApi, issueId: string, scope: IssueScope): Promise<CostSplitAnswerView> {
  return api.costSplit(periodCostAsk(issueId, scope));
}

export const sectionKeys = {
  runs: (issueId: string): string => `issue runs ${issueId}`,
  occurrences: (issueId: string, scope: IssueScope): string => `issue occurrences ${issueId} ${JSON.stringify(scope)}`,
  cost: (issueId: string, scope: IssueScope): string => `issue cost ${issueId} ${JSON.stringify(periodCostAsk(issueId, scope))}`,
};

/** Asks every section's first read of the issue's page now. */
export function askIssueSections(api: HivewatchApi, issueId: string, scope: IssueScope): void {
  keepRead(sectionKeys.runs(issueId), readRunsAffected(api, issueId));
  keepRead(sectionKeys.occurrences(issueId, scope), readOccurrences(api, issueId, scope));
  keepRead(sectionKeys.cost(issueId, scope), readPeriodCost(api, issueId, scope));
}
