import type {
  CostSplitAnswerView,
  ErrorOccurrence,
  HivewatchApi,
  IssueDetail,
  IssueScope,
  Page,
  RunCounts,
  RunStatus,
  RunSummary,
} from '../../core/service/api.js';
import { keepRead, takeKept } from '../lib/kept-reads.js';

/**
 * What an issue's page sections read first — the runs it hit, its occurrences, its cost in the
 * period — each defined once here, and asked early
 * (lib/kept-reads.ts): the page asks them in the same turn as the issue itself
 * (`askIssueSections`), so all travel in one batch, and each section takes its answer when it
 * mounts with the issue. Asked by the sections alone, after the issue's answer had been drawn,
 * they were two more round trips before the page was whole. A section that reads again (a
 * refresh, a retry) asks afresh.
 *
 * How many of its runs a retry takes is not among them: it reads each of the issue's runs (100 to
 * 160 ms for an issue of 23,810 runs among a million, where the rest of the batch takes ~60), and
 * a batch is answered whole, so it held every section back. The runs section asks it once it has
 * drawn, as a request of its own, and shows the offer when it comes (docs/benches.md, "The
 * detail screens").
 */

/** What a bulk retry takes (its refusals say why it takes no other). */
export const RETRYABLE: RunStatus[] = ['failed', 'cancelled', 'interrupted'];
export const RUNS_PAGE = 20;
export const OCCURRENCES_PAGE = 25;

export function readRunsAffected(api: HivewatchApi, issueId: string): Promise<Page<RunSummary>> {
  return api.listRuns({ issue: issueId, limit: RUNS_PAGE });
}

/** How many of the issue's runs a bulk retry takes (retry-offer.ts says what to offer for it). */
export function readRetryCount(api: HivewatchApi, issueId: string): Promise<RunCounts> {
  return api.countRuns({ issue: issueId, status: RETRYABLE });
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

const issueKey = (issueId: string, scope: IssueScope): string => `issue ${issueId} ${JSON.stringify(scope)}`;

/** The window opens on an issue's page: the issue and its sections' first reads, asked now, in one batch. */
export function askIssuePage(api: HivewatchApi, issueId: string, scope: IssueScope): void {
  keepRead(issueKey(issueId, scope), api.getIssueDetail({ id: issueId, ...scope }));
  askIssueSections(api, issueId, scope);
}

/**
 * The page's read of the issue: the one the window asked as it opened when it is for the same
 * period, else asked now with its sections' first reads beside it (one batch).
 */
export function readIssuePage(api: HivewatchApi, issueId: string, scope: IssueScope): Promise<IssueDetail> {
  const kept = takeKept<IssueDetail>(issueKey(issueId, scope));
  if (kept !== null) return kept;
  askIssueSections(api, issueId, scope);
  return api.getIssueDetail({ id: issueId, ...scope });
}
