/**
 * An issue's page in the API (`getIssueDetail`, `#/issues/<id>`, `hivewatch issues show`):
 * everything about one issue on one page. Types only, like api.ts; docs/triage.md "The issue
 * page" says what each part means and where it is read from.
 */
import type { ErrorEnvelope } from '../base/errors/envelope.js';
import type { AlertDeliveryView } from './alerts/views.js';
import type { ErrorOccurrence } from './api-errors.js';
import type { Issue, IssueScope } from './api-issues.js';

export interface IssueDetailInput extends IssueScope {
  /** The fingerprint or a unique prefix of it. */
  id: string;
}

/** One line of an issue's activity, oldest first. */
export interface IssueActivity {
  /** `first-seen` (its first occurrence), a status change of its log, or `alert` (a webhook delivery about it). */
  kind: 'first-seen' | 'new' | 'regressed' | 'escalating' | 'resolved' | 'ignored' | 'reopened' | 'alert';
  at: number;
  /** Who: 'cli', 'window', `host:<machine>:<pid>` for a system change; null for first seen and alerts. */
  by: string | null;
  /** The change's reason, or the alert's title. */
  text: string | null;
  /** The occurrence behind it (`runId#seq`): the first one, or the one that made a system change. */
  cause: string | null;
  /** With an ignore: what it waits for. */
  ignore: Issue['ignore'];
  /** With `alert`: the delivery as the delivery log shows it. */
  alert: AlertDeliveryView | null;
}

/** One version of a flow: the run that ran it, and its digest (`sha256:…`) and text as journaled. */
export interface IssueFlowVersion {
  runId: string;
  startedAt: number;
  digest: string | null;
  /** The flow's text as that run ran it; null when its journal does not keep it. */
  text: string | null;
}

/** The flow of the issue's first occurrence against the version its previous run ran. */
export interface IssueFlowChange {
  flow: string;
  flowName: string;
  first: IssueFlowVersion;
  /** The same flow's run started last before it; null when the issue was first seen in the flow's first run. */
  before: IssueFlowVersion | null;
  /** The two digests differ: first seen after a flow change. null when a digest is unknown (an older journal). */
  changed: boolean | null;
}

/** What the runs that failed on this issue cost, from their usage totals. */
interface IssueCost {
  failedRuns: number;
  /** Of them, the runs that reported usage. */
  reported: number;
  costUsd: number;
  /** Attempts that reported tokens without a price (their cost is unknown, not $0). */
  unknownCostAttempts: number;
}

export interface IssueDetail {
  /** The issue in the scope asked (its period counts, forecast, trend over the period). */
  issue: Issue;
  /** The newest occurrence with its envelope, and its cause chain (the envelope first, then each cause). */
  latest: { occurrence: ErrorOccurrence; chain: ErrorEnvelope[] } | null;
  /** The flows it happened in, most occurrences first (all time). */
  flows: { flow: string; flowName: string; occurrences: number }[];
  /** Where its occurrences came from: one origin, since the origin is part of an issue's fingerprint. */
  origins: string[];
  activity: IssueActivity[];
  flowChange: IssueFlowChange | null;
  cost: IssueCost;
}
