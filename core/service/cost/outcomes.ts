import type { CostSplitQuery, HivewatchStore } from '../../store/index.js';
import type { CostSplitAnswerView, CostSplitInput, FlowHealthView } from '../api-usage.js';
import type { IssueBook } from '../issues/book.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';

/**
 * What failure costs and how each flow fares, in the API (docs/triage.md): the store's cost
 * split and flow health (migration 21's rollups) under the screens' filters. An issue status is
 * the issues that have it now (the issue book's fold of their logs), so the figures follow the
 * Errors screen's status filter as its issues do.
 */

/** The fingerprints of the issues with this status now (issues are at most the book's 1,000). */
async function fingerprintsWith(book: IssueBook, status: NonNullable<CostSplitInput['issueStatus']>): Promise<string[]> {
  const fingerprints: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await book.list({ status, limit: 1_000, ...(cursor !== undefined ? { cursor } : {}) });
    fingerprints.push(...page.items.map((issue) => issue.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return fingerprints;
}

export function costApi(store: HivewatchStore, book: IssueBook, now: () => number = Date.now): Pick<HivewatchService, 'costSplit' | 'flowHealth'> {
  return {
    costSplit: (input) =>
      guard(async (): Promise<CostSplitAnswerView> => {
        const { issueStatus, issue, ...filter } = parseInput('costSplit', input);
        const query: CostSplitQuery = { ...filter, now: now() };
        if (issue !== undefined) query.fingerprints = [issue];
        if (issueStatus !== undefined) {
          const withStatus = await fingerprintsWith(book, issueStatus);
          query.fingerprints = issue === undefined ? withStatus : withStatus.filter((f) => f === issue);
        }
        return store.usage({ kind: 'costSplit', query });
      }),
    flowHealth: (input) =>
      guard(async (): Promise<FlowHealthView[]> => {
        const window = parseInput('flowHealth', input ?? {});
        return store.usage({ kind: 'flowHealth', query: { ...window, now: now() } });
      }),
  };
}
