/** The API's shapes of tokens and cost, re-exported by api.ts. */
import type { SpendFigures } from '../common/usage-format.js';

/**
 * Tokens and cost summed over attempts. `costUsd` sums the costs reported; when
 * `unknownCostAttempts` > 0 some attempts reported tokens but no cost, so the cost is a lower bound.
 */
export interface UsageTotalsView {
  attempts: number;
  failedAttempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  failedCostUsd: number;
  unknownCostAttempts: number;
}

/** A run's usage; `countedIn`: the Hivewatch attempt that ran this session and counts its usage in the totals. */
export interface UsageView extends UsageTotalsView {
  countedIn: { runId: string; taskId: string; attempt: number } | null;
}

export interface FlowUsageView extends UsageTotalsView {
  flow: string;
}

/** A run with what its attempts spent: its flow, when it started and how it stands. */
export interface CostlyRunView extends UsageView {
  runId: string;
  flow: string;
  startedAt: number;
  status: string;
}

/** What some attempts spent (one outcome's share of a split). */
export type CostFiguresView = SpendFigures;

/**
 * What failure costs (docs/triage.md "What failure costs"): spent by runs that ended failed, on
 * failed attempts of runs that did not, and by successful work. The three add up to everything
 * the attempts counted spent.
 */
export interface CostSplitView {
  failed: CostFiguresView;
  retried: CostFiguresView;
  succeeded: CostFiguresView;
}

export interface CostSplitAnswerView {
  total: CostSplitView;
  /** Each flow with spend, costliest first. */
  flows: { flow: string; split: CostSplitView }[];
  /** Cost per hour (a window of two days or less) or day, each bucket of the window. */
  trend: { grain: 'hour' | 'day'; points: { at: number; failed: number; retried: number; succeeded: number }[] };
}

/** The Errors screen's filters, as far as cost has them: an issue status or one issue (its fingerprint) too. */
export interface CostSplitInput {
  since?: number;
  until?: number;
  flow?: string;
  category?: string;
  origin?: string;
  code?: string;
  runId?: string;
  issueStatus?: 'unresolved' | 'resolved' | 'ignored' | 'regressed' | 'escalating' | 'new' | 'ongoing';
  /** One issue: its whole fingerprint. */
  issue?: string;
}

/** A flow's health over a window (docs/triage.md "Flow health"). */
export interface FlowHealthView {
  flow: string;
  flowName: string;
  lastRun: { id: string; status: 'queued' | 'running' | 'cancelling' | 'completed' | 'failed' | 'cancelled' | 'interrupted'; startedWall: number } | null;
  /** Runs that ended in the window, by status. */
  ended: { completed: number; failed: number; cancelled: number; interrupted: number };
  /** Completed ÷ (completed + failed); null when no run reached either. */
  successRate: number | null;
  /** Median duration of the runs that completed in the window (within 5 %); null without any. */
  p50DurationMs: number | null;
  cost: CostSplitView;
  /**
   * Time waiting on a person (docs/otel.md "Waiting for approval"): what its runs that ended in
   * the window waited on permission prompts, how many waited, how many wait now. Optional for
   * older producers.
   */
  approval?: { waitedMs: number; runs: number; waitingNow: number };
}
