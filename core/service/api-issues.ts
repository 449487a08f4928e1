/**
 * Error issues in the API: an error group (by fingerprint) with a title,
 * counts from the failure model, a trend and a status an operator works. Types only: the
 * renderer imports them through api.ts. docs/triage.md, "Issues", says what each one means.
 */

type IssueStatus = 'unresolved' | 'resolved' | 'ignored';
/** Of an unresolved issue: new (first seen < 72 h ago), ongoing, escalating, regressed. */
export type IssueSubstatus = 'new' | 'ongoing' | 'escalating' | 'regressed';
/**
 * last-seen and first-seen newest first; events and failures in the period, largest first; runs
 * affected, largest first; trend: the largest growth against the previous period first
 * (docs/triage.md "What is getting worse").
 */
export const ISSUE_SORTS = ['last-seen', 'first-seen', 'events', 'failures', 'runs', 'trend'] as const;
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

/** An issue's counts in the chosen period and the one before it (as long, ending where it starts). */
export interface IssuePeriod {
  /** The period: [since, until); since null for all time. */
  since: number | null;
  until: number;
  events: number;
  /** Runs that ended failed on this issue, counted at their ending error's time. */
  failures: number;
  /** The period before; null for all time, which has none. */
  previous: { since: number; until: number; events: number; failures: number } | null;
  /**
   * Events against the previous period's: (events − before) / before, so 3.4 reads "+340 %";
   * null when there is no previous period or it had no events (then a period with events is new).
   */
  change: number | null;
}

/** The forecast an unresolved issue's last hour is judged by (docs/triage.md "Escalating is a forecast"). */
export interface IssueEscalation {
  /** Occurrences in the last 60 minutes. */
  lastHour: number;
  /** The most the issue's own last week forecasts for an hour; null when not worked out (a quiet last hour cannot exceed it). */
  forecast: number | null;
  /** How the forecast was made: quiet week (10), sparse (10 × the busiest hour), steady (Sentry's statistics). */
  basis: 'quiet' | 'sparse' | 'steady' | null;
  /** The week's figures the forecast came from: hours with occurrences, the busiest hour, the mean. */
  hours: number;
  max: number;
  mean: number;
  /** The last hour is over the forecast (a `new` issue is judged only once it is no longer new). */
  over: boolean;
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
  /** Events and failures in the period the list or page was asked for, and the change against the period before. */
  period: IssuePeriod;
  escalation: IssueEscalation;
  /** Its status and sub-state in words, with the figures behind them ("escalating: 41 events in the last hour, forecast 6"). */
  why: string;
  /** Occurrences per bucket over the period (at least its last 24 hours), oldest first, from `trendStart`. */
  trend: number[];
  trendStart: number;
  /** An hour, or a day for periods longer than three days. */
  trendBucketMs: number;
  /** The last bucket is the current one: still filling, not a finished bucket. */
  trendPartial: boolean;
  /** The last status change: when, by whom ('cli', 'window', `host:<id>`), why. */
  changedAt: number | null;
  changedBy: string | null;
  reason: string | null;
}

/**
 * The period and filters an issue list or page is read for: the Errors screen's. With `since`,
 * only issues with events in [since, until) are listed; category, origin and code match the
 * issue's own, flow and run the occurrences counted.
 */
export interface IssueScope {
  since?: number;
  until?: number;
  category?: string;
  origin?: string;
  code?: string;
  flow?: string;
  runId?: string;
}

export interface ListIssuesInput extends IssueScope {
  status?: IssueStatusFilter;
  /** Default last-seen (newest first); see ISSUE_SORTS. */
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
