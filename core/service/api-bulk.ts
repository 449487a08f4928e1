/**
 * The bulk actions' shapes (docs/triage.md "Bulk actions"): one action on many
 * runs, named by id or by the Runs list's filter. Types and plain constants only; callers import
 * them from api.ts.
 */

/** What a bulk action does to each run (docs/triage.md "Bulk actions"). */
export const BULK_ACTIONS = ['cancel', 'retry', 'resume', 'retryNow'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** At most this many runs per bulk call: ids given, or runs a filter matches. */
export const BULK_MAX_RUNS = 10_000;

export interface BulkRunResult {
  runId: string;
  /** `done`: the command was journaled / the new run started (in a dry run: would be). `refused`: nothing was done. */
  outcome: 'done' | 'refused';
  /** Why it was refused (or a note on what was done: "delivered to pid 123; it has not answered yet"). */
  message?: string;
  /** The journaled command's id (cancel, retryNow: one per run, as a single action). */
  commandId?: string;
  /** The run that retry or resume started. */
  newRunId?: string;
}

export interface BulkResult {
  action: BulkAction;
  dryRun: boolean;
  /** Runs named (ids) or matched (filter). */
  matched: number;
  done: number;
  refused: number;
  /** In the order the runs were named, or the list's order (newest first) for a filter. */
  results: BulkRunResult[];
}
