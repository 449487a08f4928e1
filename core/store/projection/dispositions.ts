import type { FailureLink, HivewatchEvent } from '../../base/events.js';
import { isTerminal } from '../../common/run-statuses.js';
import { endingChainAt, settlesPending, staysPending } from '../../common/ending-chain.js';
import { failureOf, type Failure } from '../rollups/failure-rollups.js';
import { fingerprintOf } from './fingerprint.js';
import type { ErrorDisposition, ErrorRow, RunRow } from './schema.js';

/**
 * The store's half of the failure model (docs/semantics.md F1–F4): each error occurrence's
 * disposition and its run's ending error on the rows the store writes, so the live writers
 * (SQLite, PostgreSQL), replay and the migration that settles old journals all call this one
 * code. Which occurrences stay pending and which chain a run ends with is the rule the window
 * applies too (core/common/ending-chain.ts); here it becomes dispositions:
 *
 * - A pending occurrence stays `pending` until its run ends; one that is not pending at insert (a
 *   retried attempt's, or one after the end) is `handled`.
 * - A failure (`runFailed`, or `externalRunIdle` with an error) makes the links of its chain
 *   `unhandled` (the head is the run's `ending` row) and every other pending occurrence `handled`.
 * - `runCompleted`, `runCancelled`, `runInterrupted` and `externalRunIdle` without an error settle
 *   every pending occurrence `handled`. The `SYSTEM_RUN_INTERRUPTED` occurrence recovery journals
 *   is `handled` too: an interrupted run did not fail (docs/decisions/0031-the-failure-model.md, "The failure
 *   model in the store").
 */

type ErrorOccurred = Extract<HivewatchEvent, { type: 'errorOccurred' }>;

/** The error row of an `errorOccurred`; its `ts` is the event's wall-clock time. */
export function errorRowOf(event: ErrorOccurred, run: RunRow, wall: number = event.ts): ErrorRow {
  const env = event.error;
  const c = env.correlation ?? {};
  return {
    runId: event.runId,
    seq: event.seq,
    ts: wall,
    category: env.category,
    code: env.code,
    origin: env.origin,
    message: env.message,
    fingerprint: fingerprintOf(env.category, env.code, env.origin, env.message).fingerprint,
    caught: event.caught,
    retrying: event.retrying,
    recoverable: env.recoverable,
    recoveryHint: env.recovery_hint ?? null,
    context: env.context ?? {},
    timestamp: env.timestamp ?? event.ts,
    project: c.project ?? null,
    flow: run.flow !== '' ? run.flow : (c.flow ?? ''),
    step: event.step ?? c.step ?? null,
    taskId: event.taskId ?? c.task ?? null,
    attempt: c.attempt ?? null,
    disposition: dispositionAtInsert(event, run),
    ending: false,
  };
}

/** A new occurrence's disposition (see the module comment). */
function dispositionAtInsert(event: ErrorOccurred, run: RunRow): ErrorDisposition {
  return staysPending(event, isTerminal(run.status)) ? 'pending' : 'handled';
}

/** A stored occurrence a terminal event settled: its counts move from `before`'s key to `after`'s. */
export interface SettledError {
  before: ErrorRow;
  after: ErrorRow;
}

/** Where settling puts its results: rows of this batch are replaced in `errors`, older ones go to `settled`. */
export interface SettleOutput {
  errors: ErrorRow[];
  settled: SettledError[];
  /** Failure-rollup changes: +1 for a run that ended failed, -1 for one that no longer is. */
  failures: { failure: Failure; sign: 1 | -1 }[];
}

/**
 * At an event `changesEnding` accepts: sets `run`'s ending error (the caller's own copy, already
 * reduced by the event), settles `pending` (the run's pending occurrences, which the caller then
 * forgets) and records the failure-rollup change. `before` is the run row before the event.
 */
export function settleRun(before: RunRow, run: RunRow, event: HivewatchEvent, pending: readonly ErrorRow[], out: SettleOutput): void {
  const chain = endingChainAt(event, pending);
  if (chain !== undefined) setEnding(run, chain);
  // A failure's links are unhandled; a cancel's or an interruption's one link is no occurrence's failure.
  const failed = chain != null && (event.type === 'runFailed' || event.type === 'externalRunIdle');
  const unhandled: ReadonlySet<number> = failed ? new Set(chain.flatMap((link) => (link.seq === null ? [] : [link.seq]))) : new Set();
  const head = failed ? (chain[0]?.seq ?? null) : null;
  if (settlesPending(event)) {
    for (const row of pending) settle(row, unhandled.has(row.seq) ? 'unhandled' : 'handled', row.seq === head, out);
  }
  const was = failureOf(before);
  const now = failureOf(run);
  if (was !== null && (now === null || sameFailure(was, now) === false)) out.failures.push({ failure: was, sign: -1 });
  if (now !== null && (was === null || sameFailure(was, now) === false)) out.failures.push({ failure: now, sign: 1 });
}

function sameFailure(a: Failure, b: Failure): boolean {
  return a.wall === b.wall && a.category === b.category && a.origin === b.origin && a.code === b.code && a.rootCode === b.rootCode && a.flow === b.flow;
}

function settle(row: ErrorRow, disposition: ErrorDisposition, ending: boolean, out: SettleOutput): void {
  const after: ErrorRow = { ...row, disposition, ending };
  const inBatch = out.errors.indexOf(row);
  if (inBatch >= 0) out.errors[inBatch] = after;
  else out.settled.push({ before: row, after });
}

function setEnding(run: RunRow, chain: readonly FailureLink[] | null): void {
  const head = chain?.[0];
  run.endingCode = head?.code ?? null;
  run.endingCategory = head?.category ?? null;
  run.endingOrigin = head?.origin ?? null;
  run.endingMessage = head?.message ?? null;
  run.endingStep = head?.step ?? null;
  run.endingTaskId = head?.taskId ?? null;
  run.endingAttempt = head?.attempt ?? null;
  run.endingRootCode = chain && chain.length > 0 ? (chain[chain.length - 1] as FailureLink).code : null;
  run.endingChain = chain && chain.length > 0 ? [...chain] : null;
}
