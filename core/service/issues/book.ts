import { randomUUID } from 'node:crypto';
import { emptyIssueState, foldIssueLog, isStaleRow, type IssueState } from '../../store/issues/issue-state.js';
import type { IssueTransitions } from '../../store/issues/issue-transitions.js';
import type { ErrorGroup, HivewatchStore } from '../../store/index.js';
import type { IssueActor, IssueFacts, IssueLogRow, NewIssueChange } from '../../store/issues/issues.js';
import type { Issue, IssueScope, IssueSort, IssueStatusFilter, ListIssuesInput, SetIssueStatusInput } from '../api-issues.js';
import { ApiError } from '../../common/api-errors.js';
import { ignoreBoundsSchema, parseWith } from '../schemas.js';
import { escalatesByRate, issueTitle, toIssue } from './assembly.js';
import { issueEscalations, type Escalation } from './escalations.js';
import { ForecastHistory } from './forecast-history.js';
import { dueTransition } from './rules.js';
import { growth, issueTrends, periodBounds, periodCounts, periodOf, type PeriodBounds, type PeriodCounts } from './scope.js';

/**
 * Error issues over the store: assembling what an issue shows, the operator's status changes,
 * and `reconcile`, which journals the system transitions that are due (new, regressed,
 * escalating, an ignore that lapsed) and tells the hook. Any host may reconcile at any time: a
 * transition's dedupe key lets one insert land (docs/triage.md "Issues").
 */

/** Issues are the groups seen most recently, up to this many (the store's largest page). */
const MAX_ISSUES = 1_000;
/** At most this many transitions for one issue in one pass (new → escalating is two). */
const MAX_STEPS = 4;
/** How long a status's fingerprints are reused by the Errors screen's panels (one screen asks several times at once). */
const STATUS_SCOPE_MS = 2_000;

export interface IssueBookOptions {
  store: HivewatchStore;
  hub: IssueTransitions;
  /** Names this process in system transitions: `host:<host>`. */
  host: string;
  now?: () => number;
}

const encodeCursor = (offset: number): string => `o${offset}`;
function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^o(\d{1,7})$/.exec(cursor);
  if (!offset) throw new ApiError('invalid_input', 'cursor: not a cursor of this list');
  return Number(offset[1]);
}

const SORTS: Record<IssueSort, (a: Issue, b: Issue) => number> = {
  'last-seen': (a, b) => b.lastSeen - a.lastSeen,
  'first-seen': (a, b) => b.firstSeen - a.firstSeen,
  events: (a, b) => b.period.events - a.period.events || b.lastSeen - a.lastSeen,
  failures: (a, b) => b.period.failures - a.period.failures || b.failures - a.failures || b.lastSeen - a.lastSeen,
  runs: (a, b) => b.runs - a.runs || b.lastSeen - a.lastSeen,
  trend: (a, b) => growth(b.period) - growth(a.period) || b.period.events - a.period.events || b.lastSeen - a.lastSeen,
};

const sortIssues = (issues: Issue[], sort: IssueSort = 'last-seen'): Issue[] => issues.sort((a, b) => SORTS[sort](a, b) || a.id.localeCompare(b.id));

/** Whether the scope narrows the occurrences counted (a period, a flow, a run), not only the issues. */
const narrowsOccurrences = (scope: IssueScope): boolean =>
  scope.since !== undefined || scope.until !== undefined || scope.flow !== undefined || scope.runId !== undefined;

const matchesGroup =
  (scope: IssueScope) =>
  (group: ErrorGroup): boolean =>
    (scope.category === undefined || group.category === scope.category) &&
    (scope.origin === undefined || group.origin === scope.origin) &&
    (scope.code === undefined || group.code === scope.code);

const matchesStatus =
  (status: IssueStatusFilter) =>
  (issue: Issue): boolean =>
    issue.status === status || issue.substatus === status;

export class IssueBook {
  private readonly store: HivewatchStore;
  private readonly now: () => number;
  private readonly statusScopes = new Map<string, { at: number; fingerprints: Promise<readonly string[] | null> }>();
  private readonly forecasts: ForecastHistory;

  constructor(private readonly options: IssueBookOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.forecasts = new ForecastHistory(options.store);
  }

  /** Lets go of the store's commit notifications (the service is closing). */
  close(): void {
    this.forecasts.close();
  }

  private async groups(): Promise<ErrorGroup[]> {
    return this.store.errorGroups({ sort: 'last_seen', limit: MAX_ISSUES });
  }

  /** The fingerprint `id` names: itself, or the one group it is a prefix of. */
  async resolveId(id: string): Promise<ErrorGroup> {
    const groups = await this.groups();
    const exact = groups.find((g) => g.fingerprint === id);
    if (exact) return exact;
    const matches = id === '' ? [] : groups.filter((g) => g.fingerprint.startsWith(id));
    if (matches.length === 0) throw new ApiError('issue_not_found', `no such issue "${id}"`);
    if (matches.length > 1)
      throw new ApiError(
        'issue_ambiguous',
        `"${id}" is the start of ${matches.length} issues (${matches
          .slice(0, 3)
          .map((g) => g.fingerprint)
          .join(', ')}${matches.length > 3 ? ', …' : ''}); give more of it`,
      );
    return matches[0] as ErrorGroup;
  }

  /** Each issue's last hour against its forecast; `always`: the forecast even of a quiet hour. */
  private async escalations(fingerprints: readonly string[], facts: readonly IssueFacts[], now: number, always = false): Promise<Map<string, Escalation>> {
    return issueEscalations(this.forecasts, fingerprints, new Map(facts.map((f) => [f.fingerprint, f.lastHour])), now, always);
  }

  /**
   * Journals every system transition due for these groups (all when absent), each once across
   * hosts, and emits the ones this process journaled. Returns them.
   */
  async reconcile(only?: readonly string[]): Promise<IssueLogRow[]> {
    if (this.store.readonly) return [];
    // A batch's pass reads only the issues it touched: their groups and their log rows.
    const groups = only === undefined ? await this.groups() : only.length === 0 ? [] : await this.store.issues.groups(only);
    if (groups.length === 0) return [];
    const now = this.now();
    const fingerprints = groups.map((g) => g.fingerprint);
    const states = foldIssueLog(await this.store.issues.log(only === undefined ? undefined : fingerprints));
    const escalations = await this.escalations(fingerprints, await this.store.issues.facts({ fingerprints, now, ratesOnly: true }), now);
    const journaled: IssueLogRow[] = [];
    for (const group of groups) {
      let state = states.get(group.fingerprint) ?? emptyIssueState(group.fingerprint);
      const escalation = escalations.get(group.fingerprint) as Escalation;
      for (let step = 0; step < MAX_STEPS; step++) {
        const byRate = escalatesByRate({ group, state, escalation: escalation.view, now });
        const after = state.resolved?.at ?? state.ignored?.at;
        const since = after === undefined ? null : await this.store.issues.occurrencesAfter(group.fingerprint, after);
        const due = dueTransition({ state, firstSeen: group.firstSeen, escalating: byRate ? escalation.words : null, since, now });
        if (due === null) break;
        const row = await this.journal(group, { ...due, fingerprint: group.fingerprint, actor: 'system', host: this.options.host, ignore: null });
        if (row === null) break; // another host journaled it: its hook tells it.
        journaled.push(row);
        state = foldIssueLog(await this.store.issues.log(group.fingerprint)).get(group.fingerprint) ?? state;
      }
    }
    if (journaled.length > 0) this.statusScopes.clear();
    return journaled;
  }

  private async journal(group: ErrorGroup, change: NewIssueChange): Promise<IssueLogRow | null> {
    const row = await this.store.issues.journal(change);
    if (row !== null && change.actor === 'system' && (await this.landedStale(row))) return null;
    if (row !== null)
      this.options.hub.emit({
        fingerprint: row.fingerprint,
        title: issueTitle(group),
        kind: row.kind,
        at: row.at,
        by: row.actor === 'system' ? `host:${row.host}` : row.actor,
      });
    return row;
  }

  /** Whether an operator's change landed before this system row (issue-state.ts isStaleRow): then it is not told. */
  private async landedStale(row: IssueLogRow): Promise<boolean> {
    const before = (await this.store.issues.log(row.fingerprint)).filter((r) => r.id < row.id);
    return isStaleRow(foldIssueLog(before).get(row.fingerprint) ?? emptyIssueState(row.fingerprint), row);
  }

  /**
   * The issues of a scope with their period counts and statuses: the groups whose own fields
   * match, and, when the scope narrows what is counted, only those with events in it.
   */
  private async scoped(scope: IssueScope, now: number, always = false): Promise<{ issues: Issue[]; bounds: PeriodBounds }> {
    const bounds = periodBounds(scope, now);
    let groups = (await this.groups()).filter(matchesGroup(scope));
    let counts: PeriodCounts | null = null;
    if (narrowsOccurrences(scope)) {
      counts = await periodCounts(
        this.store,
        groups.map((g) => g.fingerprint),
        scope,
        bounds,
      );
      const seen = counts.current;
      groups = groups.filter((g) => seen.has(g.fingerprint));
    }
    return { issues: await this.assemble(groups, bounds, counts, now, always), bounds };
  }

  /** Issues of these groups; without period counts (all time, unfiltered) the group's own count is the period's. */
  private async assemble(groups: readonly ErrorGroup[], bounds: PeriodBounds, counts: PeriodCounts | null, now: number, always: boolean): Promise<Issue[]> {
    if (groups.length === 0) return [];
    const fingerprints = groups.map((g) => g.fingerprint);
    const states = foldIssueLog(await this.store.issues.log(groups.length > 50 ? undefined : fingerprints));
    const facts = await this.store.issues.facts({ fingerprints, now });
    const byFingerprint = new Map(facts.map((f) => [f.fingerprint, f]));
    const escalations = await this.escalations(fingerprints, facts, now, always);
    return groups.map((group) => {
      const fact = byFingerprint.get(group.fingerprint);
      const period =
        counts === null
          ? { since: null, until: bounds.until, events: group.count, failures: fact?.failures ?? 0, previous: null, change: null }
          : periodOf(group.fingerprint, counts, bounds);
      const state = states.get(group.fingerprint) ?? emptyIssueState(group.fingerprint);
      return toIssue({ group, state, facts: fact, period, escalation: (escalations.get(group.fingerprint) as Escalation).view, now });
    });
  }

  async list(input: ListIssuesInput): Promise<{ items: Issue[]; nextCursor: string | null }> {
    await this.reconcile();
    const offset = decodeCursor(input.cursor);
    const limit = input.limit ?? 50;
    const { status, sort, limit: _limit, cursor: _cursor, ...scope } = input;
    const now = this.now();
    const { issues, bounds } = await this.scoped(scope, now);
    const matching = sortIssues(status === undefined ? issues : issues.filter(matchesStatus(status)), sort);
    const page = await this.withDetails(matching.slice(offset, offset + limit), scope, bounds, now);
    return { items: page, nextCursor: offset + limit < matching.length ? encodeCursor(offset + limit) : null };
  }

  /** One issue with its period counts, forecast, trend and culprit (whatever its last hour, its forecast is worked out). */
  async get(id: string, scope: IssueScope = {}): Promise<Issue> {
    const group = await this.resolveId(id);
    await this.reconcile([group.fingerprint]);
    const now = this.now();
    const bounds = periodBounds(scope, now);
    const counts = narrowsOccurrences(scope) ? await periodCounts(this.store, [group.fingerprint], scope, bounds) : null;
    const [issue] = await this.assemble([group], bounds, counts, now, true);
    return (await this.withDetails([issue as Issue], scope, bounds, now))[0] as Issue;
  }

  /**
   * The fingerprints of the issues in a status or sub-state, as the list would filter them (no
   * transition journaled), or null when every issue is in it: what narrows the Errors screen's
   * panels to the issues of a status. Reused for a moment, since one screen asks for it with
   * each of its reads. The issues are the 1,000 groups seen last: with more groups than that,
   * even "every issue" narrows (the older groups are no issues).
   */
  async statusScope(status: IssueStatusFilter): Promise<readonly string[] | null> {
    const at = performance.now();
    const held = this.statusScopes.get(status);
    if (held && at - held.at < STATUS_SCOPE_MS) return held.fingerprints;
    const fingerprints = (async () => {
      const { issues } = await this.scoped({}, this.now());
      const matching = issues.filter(matchesStatus(status)).map((i) => i.id);
      return matching.length === issues.length && issues.length < MAX_ISSUES ? null : matching;
    })();
    this.statusScopes.set(status, { at, fingerprints });
    fingerprints.catch(() => this.statusScopes.delete(status));
    return fingerprints;
  }

  async setStatus(input: SetIssueStatusInput): Promise<{ issue: Issue; changed: boolean }> {
    // Every caller's bounds (the CLI calls the book directly): nothing unbounded reaches the log.
    parseWith(ignoreBoundsSchema, { forMs: input.forMs, untilCount: input.untilCount });
    const group = await this.resolveId(input.id);
    await this.reconcile([group.fingerprint]);
    const state: IssueState = foldIssueLog(await this.store.issues.log(group.fingerprint)).get(group.fingerprint) ?? emptyIssueState(group.fingerprint);
    const now = this.now();
    const target = input.action === 'resolve' ? 'resolved' : input.action === 'ignore' ? 'ignored' : 'unresolved';
    const ignore =
      input.action === 'ignore'
        ? { until: input.forMs !== undefined ? now + input.forMs : null, count: input.untilCount ?? null, escalating: input.untilEscalating === true }
        : null;
    // Resolving a resolved issue, or reopening an unresolved one, changes nothing; ignoring again
    // replaces the condition (a new row), as an operator changing "for 1h" to "forever" expects.
    const changed = state.status !== target || input.action === 'ignore';
    if (changed) {
      const actor: IssueActor = input.by ?? 'window';
      await this.journal(group, {
        fingerprint: group.fingerprint,
        kind: input.action === 'resolve' ? 'resolved' : input.action === 'ignore' ? 'ignored' : 'reopened',
        from: state.status,
        to: target,
        actor,
        host: this.options.host,
        at: now,
        reason: input.reason ?? null,
        ignore,
        cause: null,
        dedupeKey: `${group.fingerprint}:${actor}:${randomUUID()}`,
      });
      this.statusScopes.clear();
    }
    return { issue: await this.get(group.fingerprint), changed };
  }

  /** The culprit and the trend over the period of a page of issues. */
  private async withDetails(issues: Issue[], scope: IssueScope, bounds: PeriodBounds, now: number): Promise<Issue[]> {
    if (issues.length === 0) return issues;
    const ids = issues.map((i) => i.id);
    const culprits = await this.store.issues.culprits(ids);
    const trends = await issueTrends(this.store, ids, scope, bounds, now);
    return issues.map((issue) => {
      const culprit = culprits.get(issue.id);
      return {
        ...issue,
        culprit: culprit ? (culprit.task !== null ? `${culprit.flowName} › ${culprit.task}` : culprit.flowName) : null,
        ...(culprit?.task != null && culprit.template !== null ? { culpritTemplate: culprit.template } : {}),
        trend: trends.counts.get(issue.id) ?? [],
        trendStart: trends.start,
        trendBucketMs: trends.bucketMs,
        trendPartial: trends.partial,
      };
    });
  }
}
