import type { IgnoreCondition, IssueChangeKind, IssueLogRow, IssueStatus } from './issues.js';

/**
 * An issue's status as the fold of its log rows in id order (pure): what every host computes
 * from the same rows, after any restart. Kinds map to statuses: resolved → resolved, ignored →
 * ignored, reopened / regressed / escalating / new → unresolved.
 */
export interface IssueState {
  fingerprint: string;
  status: IssueStatus;
  /** The newest row (any kind): who made it ('cli', 'window', `host:<instance>`) and why. */
  last: { id: number; kind: IssueChangeKind; at: number; by: string; reason: string | null } | null;
  /**
   * The newest row that is not an `escalating`: an issue escalates once per such epoch (a later
   * resolve, ignore, reopen or regression opens the next one).
   */
  epoch: number;
  /** The row that resolved it, while resolved. */
  resolved: { id: number; at: number } | null;
  /** The row that ignored it and what the ignore waits for, while ignored. */
  ignored: { id: number; at: number; condition: IgnoreCondition } | null;
  /** Whether its `new` row is journaled. */
  announced: boolean;
  /**
   * Whether anyone has acted on it: resolved, ignored or reopened it (or it came back from one of
   * those). Such an issue is never `new` again: it comes back `ongoing` (or regressed, escalating).
   */
  reviewed: boolean;
}

export function emptyIssueState(fingerprint: string): IssueState {
  return { fingerprint, status: 'unresolved', last: null, epoch: 0, resolved: null, ignored: null, announced: false, reviewed: false };
}

/**
 * A system transition is decided on the state a host read; when another change (an operator's)
 * landed between that read and its insert, the row's `from` is no longer the status it follows.
 * Such a row is stale: it stays in the log and changes nothing, so an ignore or a resolve made
 * meanwhile stands on every host and after every restart. `new` has no `from` and is never stale.
 */
export function isStaleRow(state: IssueState, row: IssueLogRow): boolean {
  return row.actor === 'system' && row.kind !== 'new' && row.from !== state.status;
}

function applyIssueRow(state: IssueState, row: IssueLogRow): IssueState {
  if (isStaleRow(state, row)) return state;
  const by = row.actor === 'system' ? `host:${row.host}` : row.actor;
  const next: IssueState = { ...state, status: row.to, last: { id: row.id, kind: row.kind, at: row.at, by, reason: row.reason } };
  if (row.kind === 'new') next.announced = true;
  if (row.kind !== 'new' && row.kind !== 'escalating') next.reviewed = true;
  if (row.kind !== 'escalating') next.epoch = row.id;
  next.resolved = row.to === 'resolved' ? { id: row.id, at: row.at } : null;
  next.ignored = row.to === 'ignored' ? { id: row.id, at: row.at, condition: row.ignore ?? { until: null, count: null, escalating: false } } : null;
  return next;
}

/** Every issue's state from the log (rows in id order). */
export function foldIssueLog(rows: readonly IssueLogRow[]): Map<string, IssueState> {
  const states = new Map<string, IssueState>();
  for (const row of rows) states.set(row.fingerprint, applyIssueRow(states.get(row.fingerprint) ?? emptyIssueState(row.fingerprint), row));
  return states;
}
