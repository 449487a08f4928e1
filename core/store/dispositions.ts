import type { FailureLink, HivewatchEvent } from '../base/events.js';
import { causeOf, type ErrorEnvelope } from '../base/errors/envelope.js';
import { MAX_CAUSE_DEPTH } from '../base/errors/hivewatch-error.js';
import { failureOf, type Failure } from './failure-rollups.js';
import { fingerprintOf } from './fingerprint.js';
import type { ErrorDisposition, ErrorRow, RunRow } from './schema.js';

/**
 * The store's half of the failure model (docs/semantics.md F1–F4): each error occurrence's
 * disposition and its run's ending error, decided from the run's own events in seq order, so the
 * live writers (SQLite, PostgreSQL), replay and the migration that settles old journals all call
 * this one code.
 *
 * - An occurrence is `pending` from its `errorOccurred` until its run's terminal event, except a
 *   retried attempt's error (`handled` at once: a chain never holds it) and one journaled after the
 *   run already ended (`handled`: nothing can make it a link any more).
 * - `runFailed` makes the links of its chain `unhandled` (the head is the run's `ending` row) and
 *   every other pending occurrence `handled`. The chain is `runFailed.chain`; a journal written
 *   before the failure model has none, and the links are then derived from `runFailed.error`
 *   through `causeOf` and matched to the run's pending occurrences (see `derivedChain`).
 * - `runCompleted`, `runCancelled`, `runInterrupted` and `externalRunIdle` settle every pending
 *   occurrence `handled`. The `SYSTEM_RUN_INTERRUPTED` occurrence recovery journals is `handled`
 *   too: an interrupted run did not fail (docs/decisions/0031-the-failure-model.md, "The failure model in the store").
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

function isEnded(status: RunRow['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'interrupted';
}

/** A new occurrence's disposition (see the module comment). */
function dispositionAtInsert(event: ErrorOccurred, run: RunRow): ErrorDisposition {
  if (event.retrying) return 'handled';
  return isEnded(run.status) ? 'handled' : 'pending';
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

/** The event types that end a run (and settle its pending occurrences) or reopen it. */
export function changesEnding(event: HivewatchEvent): boolean {
  switch (event.type) {
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'runCompleted':
    case 'externalRunIdle':
    case 'externalRunReopened':
      return true;
    default:
      return false;
  }
}

/**
 * At an event `changesEnding` accepts: sets `run`'s ending error (the caller's own copy, already
 * reduced by the event), settles `pending` (the run's pending occurrences, which the caller then
 * forgets) and records the failure-rollup change. `before` is the run row before the event.
 */
export function settleRun(before: RunRow, run: RunRow, event: HivewatchEvent, pending: readonly ErrorRow[], out: SettleOutput): void {
  let unhandled: ReadonlySet<number> = new Set();
  let head: number | null = null;
  switch (event.type) {
    case 'externalRunIdle':
    case 'runFailed': {
      // A quiet external session whose last prompt failed ends like a failed run; otherwise it completed.
      if (event.type === 'externalRunIdle' && event.error === undefined) break;
      const error = event.error as ErrorEnvelope;
      const chain = event.chain !== undefined && event.chain.length > 0 ? event.chain : derivedChain(error, pending);
      setEnding(run, chain);
      unhandled = new Set(chain.flatMap((link) => (link.seq === null ? [] : [link.seq])));
      head = chain[0]?.seq ?? null;
      break;
    }
    case 'runCancelled':
      setEnding(run, [
        {
          seq: null, code: 'SYSTEM_CANCELLED', category: 'system', origin: 'system', message: event.cause.reason,
          step: event.correlation.step, taskId: null, attempt: null, how: null,
        },
      ]);
      break;
    case 'runInterrupted':
      setEnding(run, [linkOf(event.error, matchRow(pending, event.error, new Set()), null)]);
      break;
    case 'externalRunReopened':
      setEnding(run, null);
      break;
    default:
      break;
  }
  if (event.type !== 'externalRunReopened') {
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

function linkOf(envelope: ErrorEnvelope, row: ErrorRow | undefined, how: FailureLink['how']): FailureLink {
  const c = envelope.correlation ?? {};
  return {
    seq: row?.seq ?? null,
    code: envelope.code,
    category: envelope.category,
    origin: envelope.origin,
    message: envelope.message,
    step: c.step ?? null,
    taskId: c.task ?? null,
    attempt: c.attempt ?? null,
    how,
  };
}

/**
 * The occurrence an envelope of the chain was journaled as: a pending row of the same code, task
 * and attempt (the envelope's correlation), preferring one with the same message (a rethrown error
 * is the caught envelope itself), then the newest. Each row is one link at most.
 */
function matchRow(pending: readonly ErrorRow[], envelope: ErrorEnvelope, used: Set<number>): ErrorRow | undefined {
  const c = envelope.correlation ?? {};
  let best: ErrorRow | undefined;
  for (const row of pending) {
    if (used.has(row.seq) || row.code !== envelope.code || row.taskId !== (c.task ?? null) || row.attempt !== (c.attempt ?? null)) continue;
    const better =
      best === undefined ||
      (row.message === envelope.message && best.message !== envelope.message) ||
      ((row.message === envelope.message) === (best.message === envelope.message) && row.seq > best.seq);
    if (better) best = row;
  }
  if (best) used.add(best.seq);
  return best;
}

/**
 * The chain of a `runFailed` journaled without one (before the failure model): the ending
 * envelope, then each cause `causeOf` finds (`context.lastError` of POLICY_RETRY_LIMIT_EXCEEDED,
 * `context.cause` of a `throw "message"` in a catch), each matched to its pending occurrence.
 * Those were the only two ways an old journal linked errors, so `how` is exact for them. A head
 * whose occurrence a catch had caught went on to end the run: it was rethrown.
 */
function derivedChain(error: ErrorEnvelope, pending: readonly ErrorRow[]): FailureLink[] {
  const envelopes: ErrorEnvelope[] = [];
  for (let e: ErrorEnvelope | null = error; e !== null && envelopes.length < MAX_CAUSE_DEPTH; e = causeOf(e)) envelopes.push(e);
  const used = new Set<number>();
  return envelopes.map((envelope, i) => {
    const row = matchRow(pending, envelope, used);
    const how = i === envelopes.length - 1 ? null : envelope.code === 'POLICY_RETRY_LIMIT_EXCEEDED' ? 'retry-limit' : envelope.code === 'USER_THROWN' ? 'thrown-in-catch' : null;
    const link = linkOf(envelope, row, how);
    return i === 0 && row?.caught === true ? { ...link, rethrown: true } : link;
  });
}
