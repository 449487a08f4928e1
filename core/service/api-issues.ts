/**
 * Error issues in the API (issue #23 part 1): an error group (by fingerprint) with a title,
 * counts from the failure model, a trend and a status an operator works. Types only: the
 * renderer imports them through api.ts. docs/triage.md, "Issues", says what each one means.
 */

type IssueStatus = 'unresolved' | 'resolved' | 'ignored';
/** Of an unresolved issue: new (first seen < 72 h ago), ongoing, escalating, regressed. */
export type IssueSubstatus = 'new' | 'ongoing' | 'escalating' | 'regressed';
export const ISSUE_SORTS = ['last-seen', 'first-seen', 'failures', 'runs'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];
/** The list's status filter: a status, or an unresolved issue's sub-state. */
export const ISSUE_STATUS_FILTERS = ['unresolved', 'resolved', 'ignored', 'regressed', 'escalating', 'new', 'ongoing'] as const;
export type IssueStatusFilter = (typeof ISSUE_STATUS_FILTERS)[number];
export const ISSUE_ACTIONS = ['resolve', 'ignore', 'reopen'] as const;
/**
 * An ignore's bounds (docs/triage.md "Ignore conditions"): `--for` from a minute to a year, so the
 * lapse time is an exact whole millisecond on both engines; `--until-count` from 1 to a billion.
 */
export const IGNORE_BOUNDS = { minForMs: 60_000, maxForMs: 365 * 24 * 3_600_000, maxCount: 1_000_000_000 } as const;
export type IssueAction = (typeof ISSUE_ACTIONS)[number];

/** What an ignored issue waits for; all empty: ignored until someone reopens it. */
interface IssueIgnore {
  /** Wall ms it returns to unresolved at. */
  until: number | null;
  /** Occurrences after the ignore that return it to unresolved. */
  count: number | null;
  escalating: boolean;
}

export interface Issue {
  /** The group's fingerprint (the CLI accepts a unique prefix). */
  id: string;
  /** "CODE · normalised message". */
  title: string;
  code: string;
  category: string;
  origin: string;
  /** The newest occurrence's message, as it was. */
  lastMessage: string;
  /** "flow › task" of the newest occurrence (the flow alone when it had no task); the task named by the prompt it ran. */
  culprit: string | null;
  /** That task's prompt as the flow wrote it, when its name filled in values (the culprit's tooltip). */
  culpritTemplate?: string;
  status: IssueStatus;
  /** Set while unresolved. */
  substatus: IssueSubstatus | null;
  ignore: IssueIgnore | null;
  firstSeen: number;
  lastSeen: number;
  occurrences: number;
  /** Runs that ended failed with this issue as their ending error. */
  failures: number;
  /** Runs with any occurrence of it. */
  runs: number;
  flows: number;
  /** Occurrences per hour over the last 24 hours, oldest first (24 numbers). */
  trend: number[];
  /** The last status change: when, by whom ('cli', 'window', `host:<id>`), why. */
  changedAt: number | null;
  changedBy: string | null;
  reason: string | null;
}

export interface ListIssuesInput {
  status?: IssueStatusFilter;
  /** Default last-seen (newest first); first-seen is newest first too; failures and runs largest first. */
  sort?: IssueSort;
  limit?: number;
  cursor?: string;
}

export interface SetIssueStatusInput {
  /** The fingerprint or a unique prefix of it. */
  id: string;
  action: IssueAction;
  /** With ignore: for this many ms. */
  forMs?: number;
  /** With ignore: until this many more occurrences. */
  untilCount?: number;
  /** With ignore: until it escalates. */
  untilEscalating?: boolean;
  /** Who asks (default window); the CLI says cli. */
  by?: 'window' | 'cli';
  reason?: string;
}
