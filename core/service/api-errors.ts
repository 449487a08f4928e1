/**
 * The shapes of the API's error views (api.ts re-exports them): counts, failure counts, series,
 * groups and single occurrences, the filter they share, and the dimensions they group by. Types
 * and plain constants only, like api.ts.
 */
import type { Correlation, ErrorEnvelope } from '../base/errors/envelope.js';

export const ERROR_DIMENSIONS = ['category', 'origin', 'code', 'flow', 'handled', 'run', 'task'] as const;
/**
 * An error occurrence's disposition (rule 17, docs/semantics.md "The failure model"):
 * `unhandled` when it is in the cause chain of its run's ending error, `handled` otherwise;
 * `pending` while its run is live and the occurrence could still end up in a chain (a retried
 * attempt's error is `handled` at once: a chain never holds it).
 */
type ErrorDisposition = 'pending' | 'handled' | 'unhandled';
/** The keys of `errorCounts({ by: 'handled' })`: one per disposition. */
export const HANDLED_KEYS = { handled: 'handled', unhandled: 'unhandled', pending: 'pending' } as const;
/**
 * What `failureCounts` groups failures by: the ending error's code (rows carry the chain's root
 * cause code too), its root cause's code, category, origin, or the run's flow.
 */
export const FAILURE_DIMENSIONS = ['code', 'rootCode', 'category', 'origin', 'flow'] as const;
export type FailureDimension = (typeof FAILURE_DIMENSIONS)[number];
export type ErrorDimension = (typeof ERROR_DIMENSIONS)[number];
export const SERIES_DIMENSIONS = ['category', 'origin', 'code', 'flow'] as const;
export type SeriesDimension = (typeof SERIES_DIMENSIONS)[number];
export const BUCKETS = ['minute', 'hour', 'day'] as const;
export type Bucket = (typeof BUCKETS)[number];
export interface ErrorCount {
  key: string;
  count: number;
  /** A readable name for the key where there is one: the flow's name for `flow`, `run` and `task`. */
  label?: string | null;
}

/** Failures (ending errors of runs that ended `failed`, one per run) in a window, by run end time. */
export interface FailureCounts {
  /** Equal to the runs that ended `failed` in the window (rule 17). */
  total: number;
  /** For `by: 'code'`: one row per (ending code, root cause code) pair, `rootCode` set. */
  rows: { key: string; count: number; label?: string | null; rootCode?: string }[];
}

export interface ErrorSeries {
  bucket: Bucket;
  stackBy: SeriesDimension;
  keys: string[];
  points: { start: number; counts: Record<string, number> }[];
}

export interface ErrorGroup {
  fingerprint: string;
  category: string;
  code: string;
  origin: string;
  message: string;
  count: number;
  /** Of `count`, the occurrences whose disposition is `unhandled` (links of a failed run's ending-error chain). */
  unhandled: number;
  /** First and last member over all time (whatever window `count` is for). */
  firstSeen: number;
  lastSeen: number;
  /** The normalised message every member shares (numbers, ids and paths replaced). */
  template?: string;
  /** With `trendBins`: counts over the window in that many equal bins, from the hour/day rollups. */
  trend?: number[];
}

export interface ErrorOccurrence {
  /** The `errorOccurred` event's seq within its run: unique together with `runId`. */
  id: number;
  runId: string;
  seq: number;
  ts: number;
  category: string;
  code: string;
  origin: string;
  message: string;
  fingerprint: string;
  caught: boolean;
  retrying: boolean;
  /** Settled when the run ends (rule 17). */
  disposition: ErrorDisposition;
  /** This occurrence is its run's ending error (the head of the chain): it is the run's one failure. */
  ending: boolean;
  flow: string | null;
  correlation: Correlation;
  error: ErrorEnvelope;
}

/** Filters shared by error queries; times are ms since the epoch. */
export interface ErrorFilter {
  since?: number;
  until?: number;
  flow?: string;
  category?: string;
  origin?: string;
  code?: string;
  runId?: string;
  /**
   * Only occurrences of the issues in this status or sub-state (unresolved, resolved, ignored,
   * new, ongoing, escalating, regressed), as the issues list filters them.
   */
  issueStatus?: 'unresolved' | 'resolved' | 'ignored' | 'regressed' | 'escalating' | 'new' | 'ongoing';
}
