import { randomUUID } from 'node:crypto';
import { emptyIssueState, foldIssueLog, isStaleRow, type IssueState } from '../store/issue-state.js';
import type { IssueTransitions } from '../store/issue-transitions.js';
import type { ErrorGroup, HivewatchStore } from '../store/index.js';
import type { IssueActor, IssueFacts, IssueLogRow, NewIssueChange } from '../store/issues.js';
import type { Issue, IssueSort, ListIssuesInput, SetIssueStatusInput } from './api-issues.js';
import { ApiError } from './errors.js';
import { ignoreBoundsSchema, parseWith } from './schemas.js';
import { DEFAULT_ESCALATION_FACTOR, dueTransition, isEscalating, substatusOf } from './issue-rules.js';

/**
 * Error issues over the store: assembling what an issue shows, the operator's status changes,
 * and `reconcile`, which journals the system transitions that are due (new, regressed,
 * escalating, an ignore that lapsed) and tells the hook. Any host may reconcile at any time: a
 * transition's dedupe key lets one insert land (docs/triage.md "Issues").
 */

const HOUR = 3_600_000;
/** Issues are the groups seen most recently, up to this many (the store's largest page). */
const MAX_ISSUES = 1_000;
/** At most this many transitions for one issue in one pass (new → escalating is two). */
const MAX_STEPS = 4;

export interface IssueBookOptions {
  store: HivewatchStore;
  hub: IssueTransitions;
  /** Names this process in system transitions: `host:<host>`. */
  host: string;
  now?: () => number;
  escalationFactor?: number;
}

const issueTitle = (group: Pick<ErrorGroup, 'code' | 'template'>): string => `${group.code} · ${group.template}`;

const encodeCursor = (offset: number): string => `o${offset}`;
function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^o(\d{1,7})$/.exec(cursor);
  if (!offset) throw new ApiError(400, 'invalid_input', 'cursor: not a cursor of this list');
  return Number(offset[1]);
}

const SORTS: Record<IssueSort, (a: Issue, b: Issue) => number> = {
  'last-seen': (a, b) => b.lastSeen - a.lastSeen,
  'first-seen': (a, b) => b.firstSeen - a.firstSeen,
  failures: (a, b) => b.failures - a.failures || b.lastSeen - a.lastSeen,
  runs: (a, b) => b.runs - a.runs || b.lastSeen - a.lastSeen,
};

export class IssueBook {
  private readonly store: HivewatchStore;
  private readonly now: () => number;
  private readonly factor: number;

  constructor(private readonly options: IssueBookOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.factor = options.escalationFactor ?? DEFAULT_ESCALATION_FACTOR;
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
    if (matches.length === 0) throw new ApiError(404, 'issue_not_found', `no such issue "${id}"`);
    if (matches.length > 1) throw new ApiError(400, 'issue_ambiguous', `"${id}" is the start of ${matches.length} issues (${matches.slice(0, 3).map((g) => g.fingerprint).join(', ')}${matches.length > 3 ? ', …' : ''}); give more of it`);
    return matches[0] as ErrorGroup;
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
    const states = foldIssueLog(await this.store.issues.log(only === undefined ? undefined : groups.map((g) => g.fingerprint)));
    const facts = new Map((await this.store.issues.facts({ fingerprints: groups.map((g) => g.fingerprint), now, ratesOnly: true })).map((f) => [f.fingerprint, f]));
    const journaled: IssueLogRow[] = [];
    for (const group of groups) {
      let state = states.get(group.fingerprint) ?? emptyIssueState(group.fingerprint);
      for (let step = 0; step < MAX_STEPS; step++) {
        const escalating = isEscalating(facts.get(group.fingerprint), group.firstSeen, now, this.factor);
        const after = state.resolved?.at ?? state.ignored?.at;
        const since = after === undefined ? null : await this.store.issues.occurrencesAfter(group.fingerprint, after);
        const due = dueTransition({ state, firstSeen: group.firstSeen, escalating, since, now });
        if (due === null) break;
        const row = await this.journal(group, { ...due, fingerprint: group.fingerprint, actor: 'system', host: this.options.host, ignore: null });
        if (row === null) break; // another host journaled it: its hook tells it.
        journaled.push(row);
        state = foldIssueLog(await this.store.issues.log(group.fingerprint)).get(group.fingerprint) ?? state;
      }
    }
    return journaled;
  }

  private async journal(group: ErrorGroup, change: NewIssueChange): Promise<IssueLogRow | null> {
    const row = await this.store.issues.journal(change);
    if (row !== null && change.actor === 'system' && (await this.landedStale(row))) return null;
    if (row !== null) this.options.hub.emit({ fingerprint: row.fingerprint, title: issueTitle(group), kind: row.kind, at: row.at, by: row.actor === 'system' ? `host:${row.host}` : row.actor });
    return row;
  }

  /** Whether an operator's change landed before this system row (issue-state.ts isStaleRow): then it is not told. */
  private async landedStale(row: IssueLogRow): Promise<boolean> {
    const before = (await this.store.issues.log(row.fingerprint)).filter((r) => r.id < row.id);
    return isStaleRow(foldIssueLog(before).get(row.fingerprint) ?? emptyIssueState(row.fingerprint), row);
  }

  async list(input: ListIssuesInput): Promise<{ items: Issue[]; nextCursor: string | null }> {
    await this.reconcile();
    const offset = decodeCursor(input.cursor);
    const limit = input.limit ?? 50;
    const groups = await this.groups();
    const needsAllFacts = input.sort === 'failures' || input.sort === 'runs' || input.status !== undefined;
    let issues = await this.assemble(groups, needsAllFacts);
    if (input.status !== undefined) {
      const status = input.status;
      issues = issues.filter((i) => i.status === status || i.substatus === status);
    }
    issues.sort((a, b) => SORTS[input.sort ?? 'last-seen'](a, b) || a.id.localeCompare(b.id));
    const page = issues.slice(offset, offset + limit);
    const items = needsAllFacts ? page : await this.assemble(groups.filter((g) => page.some((i) => i.id === g.fingerprint)), true);
    items.sort((a, b) => SORTS[input.sort ?? 'last-seen'](a, b) || a.id.localeCompare(b.id));
    return { items: await this.withDetails(items), nextCursor: offset + limit < issues.length ? encodeCursor(offset + limit) : null };
  }

  async get(id: string): Promise<Issue> {
    const group = await this.resolveId(id);
    await this.reconcile([group.fingerprint]);
    const [issue] = await this.assemble([group], true);
    return (await this.withDetails([issue as Issue]))[0] as Issue;
  }

  async setStatus(input: SetIssueStatusInput): Promise<{ issue: Issue; changed: boolean }> {
    // Every caller's bounds (the CLI calls the book directly): nothing unbounded reaches the log.
    parseWith(ignoreBoundsSchema, { forMs: input.forMs, untilCount: input.untilCount });
    const group = await this.resolveId(input.id);
    await this.reconcile([group.fingerprint]);
    const state = foldIssueLog(await this.store.issues.log(group.fingerprint)).get(group.fingerprint) ?? emptyIssueState(group.fingerprint);
    const now = this.now();
    const target = input.action === 'resolve' ? 'resolved' : input.action === 'ignore' ? 'ignored' : 'unresolved';
    const ignore = input.action === 'ignore'
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
    }
    return { issue: await this.get(group.fingerprint), changed };
  }

  /** Issues of these groups, with facts (runs, failures, flows) when `withFacts`. */
  private async assemble(groups: readonly ErrorGroup[], withFacts: boolean): Promise<Issue[]> {
    const now = this.now();
    const states = foldIssueLog(await this.store.issues.log());
    const facts = withFacts
      ? new Map((await this.store.issues.facts({ fingerprints: groups.map((g) => g.fingerprint), now })).map((f) => [f.fingerprint, f]))
      : new Map<string, IssueFacts>();
    return groups.map((group) => toIssue(group, states.get(group.fingerprint) ?? emptyIssueState(group.fingerprint), facts.get(group.fingerprint), now, this.factor));
  }

  /** The culprit and the 24-hour trend of a page of issues. */
  private async withDetails(issues: Issue[]): Promise<Issue[]> {
    if (issues.length === 0) return issues;
    const ids = issues.map((i) => i.id);
    const culprits = await this.store.issues.culprits(ids);
    const end = Math.floor(this.now() / HOUR) * HOUR + HOUR;
    const { trends } = await this.store.groupTrends({ fingerprints: ids, grain: 'hour', since: end - 24 * HOUR, until: end });
    return issues.map((issue) => {
      const culprit = culprits.get(issue.id);
      return {
        ...issue,
        culprit: culprit ? (culprit.task !== null ? `${culprit.flowName} › ${culprit.task}` : culprit.flowName) : null,
        ...(culprit?.task != null && culprit.template !== null ? { culpritTemplate: culprit.template } : {}),
        trend: trends.get(issue.id) ?? new Array<number>(24).fill(0),
      };
    });
  }
}

function toIssue(group: ErrorGroup, state: IssueState, facts: IssueFacts | undefined, now: number, factor: number): Issue {
  const escalating = isEscalating(facts, group.firstSeen, now, factor);
  // The `new` row is the issue's birth, not a change an operator made.
  const last = state.last && state.last.kind !== 'new' ? state.last : null;
  return {
    id: group.fingerprint,
    title: issueTitle(group),
    code: group.code,
    category: group.category,
    origin: group.origin,
    lastMessage: group.lastMessage,
    culprit: null,
    status: state.status,
    substatus: substatusOf(state, group.firstSeen, escalating, now),
    ignore: state.ignored?.condition ?? null,
    firstSeen: group.firstSeen,
    lastSeen: group.lastSeen,
    occurrences: group.count,
    failures: facts?.failures ?? 0,
    runs: facts?.runs ?? 0,
    flows: facts?.flows ?? 0,
    trend: [],
    changedAt: last?.at ?? null,
    changedBy: last?.by ?? null,
    reason: last?.reason ?? null,
  };
}
