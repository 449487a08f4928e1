import type { EndingError, ErrorEnvelope, FailureLink, HivewatchEvent } from '../../core/service/api.js';

/**
 * A run's ending error (rule 16) from its live events, as the store settles it
 * (core/store/dispositions.ts `settleRun`), so a row the stream keeps current says the same as
 * the row the server would send: `runFailed` ends with its chain (from `runFailed.chain`, or for
 * a journal written before the failure model derived from the envelope's causes and matched to
 * the run's pending occurrences), `runCancelled` with SYSTEM_CANCELLED from its cause,
 * `runInterrupted` with its error matched to its occurrence. A completed run has none.
 *
 * The renderer imports only types from the API, so the few lines of the store's rule are
 * written again here; server/live-ending.test.ts holds the two together on real journals.
 */

/** An occurrence that could still become a link of the run's chain (`pending` in the store). */
export interface PendingOccurrence {
  seq: number;
  code: string;
  message: string;
  taskId: string | null;
  attempt: number | null;
  caught: boolean;
}

/** How deep the store follows an envelope's causes (core/base/errors/hivewatch-error.ts MAX_CAUSE_DEPTH). */
const MAX_CAUSE_DEPTH = 32;

/** The envelope's cause, also from journals written before `cause` existed (core/base/errors/envelope.ts causeOf). */
function causeOf(envelope: ErrorEnvelope): ErrorEnvelope | null {
  if (envelope.cause !== undefined) return envelope.cause;
  const legacy = envelope.context.lastError ?? envelope.context.cause;
  return typeof legacy === 'object' && legacy !== null && !Array.isArray(legacy) && typeof (legacy as { code?: unknown }).code === 'string'
    ? (legacy as ErrorEnvelope)
    : null;
}

/** The pending occurrences after one more event: the store's pending rows, kept the same way. */
export function nextPending(pending: readonly PendingOccurrence[], event: HivewatchEvent, ended: boolean): readonly PendingOccurrence[] {
  if (event.type === 'errorOccurred') {
    // A retried attempt's error is handled at once, and one after the end can no longer be a link.
    if (event.retrying || ended) return pending;
    const c = event.error.correlation;
    return [
      ...pending,
      { seq: event.seq, code: event.error.code, message: event.error.message, taskId: event.taskId ?? c.task ?? null, attempt: c.attempt ?? null, caught: event.caught },
    ];
  }
  switch (event.type) {
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
      return pending.length === 0 ? pending : [];
    default:
      return pending;
  }
}

/**
 * The pending occurrence an envelope of the chain was journaled as: same code, task and attempt,
 * preferring the same message, then the newest; each occurrence is one link at most.
 */
function matchPending(pending: readonly PendingOccurrence[], envelope: ErrorEnvelope, used: Set<number>): PendingOccurrence | undefined {
  const c = envelope.correlation;
  let best: PendingOccurrence | undefined;
  for (const row of pending) {
    if (used.has(row.seq) || row.code !== envelope.code || row.taskId !== (c.task ?? null) || row.attempt !== (c.attempt ?? null)) continue;
    const same = row.message === envelope.message;
    const bestSame = best?.message === envelope.message;
    if (best === undefined || (same && !bestSame) || (same === bestSame && row.seq > best.seq)) best = row;
  }
  if (best) used.add(best.seq);
  return best;
}

function linkOf(envelope: ErrorEnvelope, seq: number | null, how: FailureLink['how']): FailureLink {
  const c = envelope.correlation;
  return {
    seq,
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

/** The chain of a `runFailed` journaled without one: the envelope and its causes, each matched to its occurrence. */
function derivedChain(error: ErrorEnvelope, pending: readonly PendingOccurrence[]): FailureLink[] {
  const envelopes: ErrorEnvelope[] = [];
  for (let e: ErrorEnvelope | null = error; e !== null && envelopes.length < MAX_CAUSE_DEPTH; e = causeOf(e)) envelopes.push(e);
  const used = new Set<number>();
  return envelopes.map((envelope, i) => {
    const row = matchPending(pending, envelope, used);
    const how = i === envelopes.length - 1 ? null : envelope.code === 'POLICY_RETRY_LIMIT_EXCEEDED' ? 'retry-limit' : envelope.code === 'USER_THROWN' ? 'thrown-in-catch' : null;
    const link = linkOf(envelope, row?.seq ?? null, how);
    return i === 0 && row?.caught === true ? { ...link, rethrown: true } : link;
  });
}

/** The ending error a chain (head first) makes: the head's fields, the root's code, the chain. */
function endingOfChain(chain: readonly FailureLink[]): EndingError | null {
  const head = chain[0];
  const root = chain[chain.length - 1];
  if (!head || !root) return null;
  return {
    code: head.code,
    category: head.category,
    origin: head.origin,
    message: head.message,
    step: head.step,
    taskId: head.taskId,
    attempt: head.attempt,
    rootCode: root.code,
    chain: [...chain],
  };
}

/**
 * The run's ending error after `event` (`current` is the one before it, `pending` the pending
 * occurrences before it): what the store's `settleRun` sets; unchanged by other events.
 */
export function nextEndingError(current: EndingError | null, event: HivewatchEvent, pending: readonly PendingOccurrence[]): EndingError | null {
  switch (event.type) {
    case 'runFailed':
      return endingOfChain(event.chain !== undefined && event.chain.length > 0 ? event.chain : derivedChain(event.error, pending));
    case 'runCancelled':
      return endingOfChain([
        {
          seq: null, code: 'SYSTEM_CANCELLED', category: 'system', origin: 'system', message: event.cause.reason,
          step: event.correlation.step, taskId: null, attempt: null, how: null,
        },
      ]);
    case 'runInterrupted':
      return endingOfChain([linkOf(event.error, matchPending(pending, event.error, new Set())?.seq ?? null, null)]);
    case 'externalRunReopened':
      return null;
    default:
      return current;
  }
}
