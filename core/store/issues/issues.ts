import { StoreError } from '../store-error.js';
import { issueCountsInWindow, issueFacts, type IssueFacts, type IssueFactsQuery } from './issue-facts.js';
import {
  firstOccurrence,
  issueFailedRunsCost,
  issueFlows,
  runBefore,
  runOf,
  type FlowRun,
  type IssueFailedRunsCost,
  type IssueFlow,
  type OccurrenceRef,
} from './issue-page-queries.js';
import { issueWindowCounts, type IssueWindowCount, type IssueWindowQuery } from './issue-periods.js';
import { all, get, type Dialect, type Query } from '../queries/plan.js';
import { toGroup, type ErrorGroup, type GroupRecord } from '../queries/groups.js';

export type { IssueFacts } from './issue-facts.js';
export type { FlowRun } from './issue-page-queries.js';
export type { IssueWindowCount } from './issue-periods.js';

/**
 * Error issues in the store (migration 14): the append-only `issue_log` of status changes and
 * the facts an issue shows that `error_groups` does not keep (runs affected, failures, flows,
 * the last hour, the culprit, counts in a period, what its page reads). Engine-neutral; the fold
 * of the log into a status is issue-state.ts, the rules that add system transitions
 * core/service/issues/rules.ts.
 */

const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

const ISSUE_CHANGE_KINDS = ['new', 'regressed', 'escalating', 'resolved', 'ignored', 'reopened'] as const;
export type IssueChangeKind = (typeof ISSUE_CHANGE_KINDS)[number];

/** Who changed an issue: an operator through the CLI or the window, or a host noticing it. */
export type IssueActor = 'cli' | 'window' | 'system';

/** What an `ignored` status waits for; every field null / false: ignored forever. */
export interface IgnoreCondition {
  /** Wall ms: the ignore lapses at this time (`--for 24h`). */
  until: number | null;
  /** The ignore lapses after this many more occurrences (`--until-count N`). */
  count: number | null;
  /** The ignore lapses when the issue escalates (`--until-escalating`). */
  escalating: boolean;
}

export interface NewIssueChange {
  fingerprint: string;
  kind: IssueChangeKind;
  from: IssueStatus | null;
  to: IssueStatus;
  actor: IssueActor;
  /** The host that journaled it (its lease instance, or the CLI's process). */
  host: string;
  at: number;
  reason: string | null;
  ignore: IgnoreCondition | null;
  /** The occurrence that caused a system transition (`runId#seq`), else null. */
  cause: string | null;
  /** Unique over the log: a second insert with the same key changes nothing. */
  dedupeKey: string;
}

export interface IssueLogRow extends NewIssueChange {
  id: number;
}

type LogRecord = {
  id: number;
  fingerprint: string;
  kind: IssueChangeKind;
  from_status: IssueStatus | null;
  to_status: IssueStatus;
  actor: IssueActor;
  host: string;
  at: number;
  reason: string | null;
  ignore_until: number | null;
  ignore_count: number | null;
  ignore_escalating: number;
  cause: string | null;
  dedupe_key: string;
};

const LOG_COLUMNS = 'id, fingerprint, kind, from_status, to_status, actor, host, at, reason, ignore_until, ignore_count, ignore_escalating, cause, dedupe_key';

const toRow = (r: LogRecord): IssueLogRow => ({
  id: r.id,
  fingerprint: r.fingerprint,
  kind: r.kind,
  from: r.from_status,
  to: r.to_status,
  actor: r.actor,
  host: r.host,
  at: r.at,
  reason: r.reason,
  ignore: r.to_status === 'ignored' ? { until: r.ignore_until, count: r.ignore_count, escalating: r.ignore_escalating === 1 } : null,
  cause: r.cause,
  dedupeKey: r.dedupe_key,
});

/** The log in id order: every issue's (small: one row per change), or one fingerprint's. */
function* issueLog(_dialect: Dialect, fingerprint?: string | readonly string[]): Query<IssueLogRow[]> {
  if (fingerprint === undefined) return (yield* all<LogRecord>(`SELECT ${LOG_COLUMNS} FROM issue_log ORDER BY id`)).map(toRow);
  const wanted = typeof fingerprint === 'string' ? [fingerprint] : [...new Set(fingerprint)];
  const rows: IssueLogRow[] = [];
  for (let i = 0; i < wanted.length; i += IN_LIST) {
    const part = wanted.slice(i, i + IN_LIST);
    const sql = `SELECT ${LOG_COLUMNS} FROM issue_log WHERE fingerprint IN (${part.map(() => '?').join(', ')}) ORDER BY id`;
    rows.push(...(yield* all<LogRecord>(sql, part)).map(toRow));
  }
  return wanted.length <= IN_LIST ? rows : rows.sort((a, b) => a.id - b.id);
}

/** Fingerprints per `IN (…)` list: well under either engine's limit on parameters. */
const IN_LIST = 500;

/**
 * The groups of these fingerprints that have members (error_groups, as `errorGroups` reads it
 * without a window): what a pass over the issues a batch touched needs, instead of the 1,000
 * most recent groups filtered down to a few. Most recently seen first.
 */
function* issueGroups(_dialect: Dialect, fingerprints: readonly string[]): Query<ErrorGroup[]> {
  const wanted = [...new Set(fingerprints)];
  const groups: ErrorGroup[] = [];
  for (let i = 0; i < wanted.length; i += IN_LIST) {
    const part = wanted.slice(i, i + IN_LIST);
    const sql = `SELECT fingerprint, category, code, origin, template, last_message, count, unhandled, first_seen, last_seen
      FROM error_groups WHERE count > 0 AND fingerprint IN (${part.map(() => '?').join(', ')})`;
    groups.push(...(yield* all<GroupRecord>(sql, part)).map(toGroup));
  }
  return groups.sort((a, b) => b.lastSeen - a.lastSeen || b.count - a.count || (a.fingerprint < b.fingerprint ? -1 : 1));
}

function checkChange(change: NewIssueChange): void {
  if (!(ISSUE_CHANGE_KINDS as readonly string[]).includes(change.kind))
    throw new StoreError('invalid_argument', `unknown issue change "${String(change.kind)}"`);
  if (!(ISSUE_STATUSES as readonly string[]).includes(change.to)) throw new StoreError('invalid_argument', `unknown issue status "${String(change.to)}"`);
  if (typeof change.fingerprint !== 'string' || change.fingerprint === '' || change.fingerprint.length > 64) {
    throw new StoreError('invalid_argument', 'an issue change needs its fingerprint');
  }
  if (!Number.isSafeInteger(change.at)) throw new StoreError('invalid_argument', 'an issue change needs its time in ms');
}

/**
 * Appends a change unless one with its dedupe key is there: the row as stored, or null when
 * another host (or an earlier try) journaled it first. One statement, so no engine holds a
 * transaction across the decision: the unique key is what makes it once.
 */
function* journalIssueChange(_dialect: Dialect, change: NewIssueChange): Query<IssueLogRow | null> {
  checkChange(change);
  const ignore = change.to === 'ignored' ? (change.ignore ?? { until: null, count: null, escalating: false }) : null;
  const rows = yield* all<LogRecord>(
    `INSERT INTO issue_log (fingerprint, kind, from_status, to_status, actor, host, at, reason, ignore_until, ignore_count, ignore_escalating, cause, dedupe_key)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING RETURNING ${LOG_COLUMNS}`,
    [
      change.fingerprint,
      change.kind,
      change.from,
      change.to,
      change.actor,
      change.host,
      change.at,
      change.reason,
      ignore?.until ?? null,
      ignore?.count ?? null,
      ignore?.escalating === true ? 1 : 0,
      change.cause,
      change.dedupeKey,
    ],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

interface IssueCulprit {
  flowName: string;
  /** The task's name: its prompt as run, filled in. */
  task: string | null;
  /** Its prompt as the flow wrote it, when the name filled in values. */
  template: string | null;
}

/** Where the newest occurrence of each issue happened: its run's flow name and its task's name. */
function* issueCulprits(_dialect: Dialect, fingerprints: readonly string[]): Query<Map<string, IssueCulprit>> {
  const out = new Map<string, IssueCulprit>();
  for (const fingerprint of new Set(fingerprints)) {
    const row = yield* get<{ flow_name: string | null; flow: string; name: string | null; template: string | null; task_id: string | null }>(
      `SELECT r.flow_name, e.flow, t.name, t.template, e.task_id FROM errors AS e
        LEFT JOIN runs AS r ON r.id = e.run_id
        LEFT JOIN tasks AS t ON t.run_id = e.run_id AND t.task_id = e.task_id
        WHERE e.fingerprint = ? ORDER BY e.ts DESC, e.run_id DESC, e.seq DESC LIMIT 1`,
      [fingerprint],
    );
    if (row) out.set(fingerprint, { flowName: row.flow_name ?? row.flow, task: row.name ?? row.task_id, template: row.template });
  }
  return out;
}

export interface Occurrences {
  count: number;
  /** The earliest occurrence after the time: `runId#seq`. */
  first: string | null;
}

/**
 * Occurrences of one issue journaled after `after` (wall ms): what a regression or an ignore's
 * count waits for. The count comes from the rollups (issue-facts.ts), the first from the index.
 */
function* occurrencesAfter(dialect: Dialect, fingerprint: string, after: number): Query<Occurrences> {
  // ts > after, for the integer ms every ts is.
  const from = Math.floor(after) + 1;
  const count = (yield* issueCountsInWindow(dialect, [fingerprint], from, undefined)).get(fingerprint) ?? 0;
  if (count === 0) return { count, first: null };
  const first = yield* get<{ run_id: string; seq: number }>(
    'SELECT run_id, seq FROM errors WHERE fingerprint = ? AND ts >= ? ORDER BY ts, run_id, seq LIMIT 1',
    [fingerprint, from],
  );
  return { count, first: first ? `${first.run_id}#${first.seq}` : null };
}

/** Issues' part of the store contract, the same queries over either engine. */
export interface IssueStore {
  /** The log in id order: all of it, or these fingerprints'. */
  log(fingerprint?: string | readonly string[]): Promise<IssueLogRow[]>;
  /** The groups of these fingerprints (with members), most recently seen first. */
  groups(fingerprints: readonly string[]): Promise<ErrorGroup[]>;
  /** Appends a status change unless its dedupe key is journaled: the stored row, or null. */
  journal(change: NewIssueChange): Promise<IssueLogRow | null>;
  facts(query: IssueFactsQuery): Promise<IssueFacts[]>;
  culprits(fingerprints: readonly string[]): Promise<Map<string, IssueCulprit>>;
  occurrencesAfter(fingerprint: string, after: number): Promise<Occurrences>;
  /** Events and failures per issue in a window, from rollups (issue-periods.ts); issues with none are absent. */
  windowCounts(query: IssueWindowQuery): Promise<Map<string, IssueWindowCount>>;
  firstOccurrence(fingerprint: string): Promise<OccurrenceRef | null>;
  run(runId: string): Promise<FlowRun | null>;
  /** The run of the same flow started last before this one. */
  runBefore(run: FlowRun): Promise<FlowRun | null>;
  flows(fingerprint: string): Promise<IssueFlow[]>;
  failedRunsCost(fingerprint: string): Promise<IssueFailedRunsCost>;
}

type Runner = <T>(query: Query<T>) => Promise<T>;

/** The contract's `issues` over an engine's way of running a read and a (writable) write. */
export function issueStore(dialect: Dialect, read: Runner, write: Runner): IssueStore {
  return {
    log: (fingerprint) => read(issueLog(dialect, fingerprint)),
    groups: (fingerprints) => read(issueGroups(dialect, fingerprints)),
    journal: (change) => write(journalIssueChange(dialect, change)),
    facts: (query) => read(issueFacts(dialect, query)),
    culprits: (fingerprints) => read(issueCulprits(dialect, fingerprints)),
    occurrencesAfter: (fingerprint, after) => read(occurrencesAfter(dialect, fingerprint, after)),
    windowCounts: (query) => read(issueWindowCounts(dialect, query)),
    firstOccurrence: (fingerprint) => read(firstOccurrence(dialect, fingerprint)),
    run: (runId) => read(runOf(dialect, runId)),
    runBefore: (run) => read(runBefore(dialect, run)),
    flows: (fingerprint) => read(issueFlows(dialect, fingerprint)),
    failedRunsCost: (fingerprint) => read(issueFailedRunsCost(dialect, fingerprint)),
  };
}
