import type { CostSplitQuery, HivewatchStore } from '../../store/index.js';
import type { CostSplitAnswerView, FlowHealthView } from '../api-usage.js';
import type { IssueBook } from '../issues/book.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';

/**
 * What failure costs and how each flow fares, in the API (docs/triage.md): the store's cost
 * split and flow health (migration 21's rollups) under the screens' filters. An issue status is
 * the issues that have it now, as the book's `statusScope` gives them to every count of the Errors
 * screen, so the cost follows the screen's status filter exactly as its counts do.
 */

export function costApi(store: HivewatchStore, book: IssueBook, now: () => number = Date.now): Pick<HivewatchService, 'costSplit' | 'flowHealth'> {
  return {
    costSplit: (input) =>
      guard(async (): Promise<CostSplitAnswerView> => {
        const { issueStatus, issue, ...filter } = parseInput('costSplit', input);
        const query: CostSplitQuery = { ...filter, now: now() };
        if (issue !== undefined) query.fingerprints = [issue];
        // The issues in the status as the Errors screen's counts narrow to them (one fold of the
        // issue logs, shared by a screen's reads for a moment): null is every group.
        const withStatus = issueStatus === undefined ? null : await book.statusScope(issueStatus);
        if (withStatus !== null) query.fingerprints = issue === undefined ? [...withStatus] : withStatus.filter((f) => f === issue);
        return store.usage({ kind: 'costSplit', query });
      }),
    flowHealth: (input) =>
      guard(async (): Promise<FlowHealthView[]> => {
        const window = parseInput('flowHealth', input ?? {});
        return store.usage({ kind: 'flowHealth', query: { ...window, now: now() } });
      }),
  };
}
