import type { CostSplitAnswerView, CostSplitInput, ErrorFilter, HivewatchApi } from '../../core/service/api.js';
import type { InHand } from '../lib/use-async.js';
import { scopeOf, type ErrorsQuery } from './errors-query.js';

/**
 * The Errors screen's two reads besides the overview: the issues list and what failure cost
 * under the screen's filters. Their panels mount only once the overview has drawn the page, so on their own they were
 * a second round trip after the first (at a million errors, the slowest part of opening the
 * screen). `prefetchSideLoads` starts them with the first round; each panel takes its answer
 * once (`take*`), and every later read (a refresh, a status change) asks the server again.
 */

type ListIssuesInput = Parameters<HivewatchApi['listIssues']>[0];
type IssuePage = Awaited<ReturnType<HivewatchApi['listIssues']>>;

/** The issues of the screen's period and filters, in its status and order. */
export function issuesInput(query: ErrorsQuery, now: number): ListIssuesInput {
  return { ...scopeOf(query, now), ...(query.issueStatus ? { status: query.issueStatus } : {}), sort: query.issueSort, limit: 1_000 };
}

/** The cost's filters: every filter of the screen, the issues' status too (its figures follow what the screen shows). */
export function costInput(filter: ErrorFilter, issueStatus: ErrorsQuery['issueStatus']): CostSplitInput {
  return { ...filter, ...(issueStatus ? { issueStatus } : {}) };
}

interface Waiting<T> {
  key: string;
  answer: Promise<T>;
  /** The answer once it is in: a panel mounting after it draws it in its first render. */
  arrived?: InHand<T>;
}

let issues: Waiting<IssuePage> | null = null;
let cost: Waiting<CostSplitAnswerView> | null = null;

/** A started read, forgotten if it fails (a panel that mounts later reads afresh, never an old failure). */
function waiting<T>(key: string, answer: Promise<T>, forget: () => void): Waiting<T> {
  const round: Waiting<T> = { key, answer };
  answer.then((data) => (round.arrived = { data, loadedAt: Date.now() }), forget);
  return round;
}

export function prefetchSideLoads(api: HivewatchApi, issuesAsk: ListIssuesInput, costAsk: CostSplitInput): void {
  const issuesKey = JSON.stringify(issuesAsk);
  const costKey = JSON.stringify(costAsk);
  if (issues?.key !== issuesKey) {
    const round: Waiting<IssuePage> = waiting(issuesKey, api.listIssues(issuesAsk), () => {
      if (issues === round) issues = null;
    });
    issues = round;
  }
  if (cost?.key !== costKey) {
    const round: Waiting<CostSplitAnswerView> = waiting(costKey, api.costSplit(costAsk), () => {
      if (cost === round) cost = null;
    });
    cost = round;
  }
}

/** The prefetched issues if their answer is already in (taken, as by `takePrefetchedIssues`). */
export function takeArrivedIssues(ask: ListIssuesInput): InHand<IssuePage> | undefined {
  const arrived = issues?.key === JSON.stringify(ask) ? issues.arrived : undefined;
  if (arrived) issues = null;
  return arrived;
}

export function takePrefetchedIssues(ask: ListIssuesInput): Promise<IssuePage> | null {
  if (issues?.key !== JSON.stringify(ask)) return null;
  const taken = issues.answer;
  issues = null;
  return taken;
}

export function takePrefetchedCost(ask: CostSplitInput): Promise<CostSplitAnswerView> | null {
  if (cost?.key !== JSON.stringify(ask)) return null;
  const taken = cost.answer;
  cost = null;
  return taken;
}
