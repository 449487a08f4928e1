import type { ErrorCount, ErrorGroup, IssueStatusFilter, RunSummary } from './api.js';
import { withAgentTree, withSpawnLinks } from './telemetry/agent-tree.js';
import { withAttemptTelemetry } from './telemetry/attempts.js';
import { withDetailTelemetrySilence, withTelemetrySilence } from './telemetry/health.js';
import { withTrends } from './errors/group-trends.js';
import { withDetailUsage, withRunUsage } from './cost/usage.js';
import { errorCount, errorGroup, errorOccurrence, errorSeries, failureCounts, retryingOf, runDetail, runSummary } from './mapping.js';
import { runErrorCounts, runErrorGroups, runErrorSeries, seriesWindow } from './errors/run-errors.js';
import { parseInput } from './schemas.js';
import { guard, runRowOr404 } from './service-context.js';
import type { HivewatchService } from './service-types.js';
import type { HivewatchStore, RunRow } from '../store/index.js';

/**
 * The read API: runs, their events, and the error views, straight from the store and mapped to
 * the API's shapes (mapping.ts). Nothing here writes; a run's own error views are computed from
 * its journal (errors/run-errors.ts), the history's from the store's rollups.
 */

type ReadApi = Pick<
  HivewatchService,
  'listRuns' | 'countRuns' | 'getRun' | 'getEvents' | 'errorCounts' | 'failureCounts' | 'errorSeries' | 'errorGroups' | 'listErrors'
>;

/** Run rows as summaries; a run waiting in backoff also says which task retries when. */
function summaries(store: HivewatchStore, rows: readonly RunRow[]): Promise<RunSummary[]> {
  return Promise.all(
    rows.map(async (row) => {
      if (row.nextAttemptAt === null) return runSummary(row, null);
      const detail = await store.getRun(row.id);
      return runSummary(row, detail ? retryingOf(detail.tasks, detail.attempts) : null);
    }),
  );
}

/**
 * The fingerprints of the issues in a status (the issue book's), or null when every issue is in
 * it (nothing to narrow: the unnarrowed views answer the same, from the error rollups).
 */
export type IssueStatusScope = (status: IssueStatusFilter) => Promise<readonly string[] | null>;

/** An error view's input with its issue status resolved to the fingerprints it narrows to. */
async function narrowed<T extends { issueStatus?: IssueStatusFilter | undefined }>(
  scope: IssueStatusScope,
  input: T,
): Promise<Omit<T, 'issueStatus'> & { fingerprints?: readonly string[] }> {
  const { issueStatus, ...rest } = input;
  if (issueStatus === undefined) return rest;
  const fingerprints = await scope(issueStatus);
  return fingerprints === null ? rest : { ...rest, fingerprints };
}

/** `now`: the wall clock a run's telemetry silence is judged by (telemetry/health.ts). */
export function readApi(store: HivewatchStore, issueScope: IssueStatusScope, now: () => number = Date.now): ReadApi {
  return {
    listRuns: (input) =>
      guard(async () => {
        const { cursor, ...query } = parseInput('listRuns', input);
        const page = await store.listRuns({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
        const items = await withSpawnLinks(store, await withRunUsage(store, await summaries(store, page.runs)));
        return { items: await withTelemetrySilence(store, items, now()), nextCursor: page.nextCursor };
      }),

    countRuns: (input) => guard(() => store.countRuns(parseInput('countRuns', input))),

    getRun: (input) =>
      guard(async () => {
        const args = parseInput('getRun', input);
        const detail = await store.getRun(args.runId);
        const lineage = await store.runLineage(args.runId);
        if (!detail || !lineage) return null;
        const shown = await withAgentTree(await withDetailUsage(store, await withAttemptTelemetry(runDetail(detail, lineage), store)), store);
        return withDetailTelemetrySilence(store, shown, now());
      }),

    getEvents: (input) =>
      guard(async () => {
        const args = parseInput('getEvents', input);
        await runRowOr404(store, args.runId);
        const page = await store.getJournalPage(args.runId, args.afterSeq ?? 0, args.limit ?? 1_000);
        return page.events.map((event, i) => ({ ...event, wall: page.walls[i] ?? event.ts }));
      }),

    errorCounts: (input) =>
      guard(async (): Promise<ErrorCount[]> => {
        const { by, limit, runId, ...filter } = await narrowed(issueScope, parseInput('errorCounts', input));
        if (runId === undefined) return (await store.errorCounts({ ...filter, by, ...(limit !== undefined ? { limit } : {}) })).map(errorCount);
        return runErrorCounts(store, { ...filter, runId }, by, limit ?? 100);
      }),

    failureCounts: (input) =>
      guard(async () => {
        const { limit, ...filter } = await narrowed(issueScope, parseInput('failureCounts', input));
        return failureCounts(await store.failureCounts({ ...filter, ...(limit !== undefined ? { limit } : {}) }));
      }),

    errorSeries: (input) =>
      guard(async () => {
        const { bucket, stackBy, runId, since, until, ...filter } = await narrowed(issueScope, parseInput('errorSeries', input));
        const window = seriesWindow(bucket, since, until);
        if (runId === undefined) return errorSeries(await store.errorSeries({ ...filter, ...window, bucket, stackBy }), stackBy);
        return errorSeries(await runErrorSeries(store, { ...filter, runId }, window, bucket, stackBy), stackBy);
      }),

    errorGroups: (input) =>
      guard(async (): Promise<ErrorGroup[]> => {
        const { limit, runId, trendBins, ...filter } = await narrowed(issueScope, parseInput('errorGroups', input));
        if (runId === undefined) {
          const groups = (await store.errorGroups({ ...filter, ...(limit !== undefined ? { limit } : {}) })).map(errorGroup);
          return trendBins === undefined ? groups : withTrends(store, groups, filter, trendBins);
        }
        return runErrorGroups(store, { ...filter, runId }, limit ?? 50);
      }),

    listErrors: (input) =>
      guard(async () => {
        const args = await narrowed(issueScope, parseInput('listErrors', input));
        const page = await store.listErrors(args);
        return { items: page.errors.map(errorOccurrence), nextCursor: page.nextCursor };
      }),
  };
}
