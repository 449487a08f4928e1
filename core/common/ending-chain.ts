import type { FailureLink, HivewatchEvent } from '../base/events.js';
import { causeOf, MAX_CAUSE_DEPTH, type ErrorEnvelope } from '../base/errors/envelope.js';

/**
 * Why a run ended (rule 16, docs/semantics.md F1–F4), decided from the run's own events in seq
 * order: the store settles its error rows by it (core/store/projection/dispositions.ts), and the window keeps
 * a live row's ending error by it (renderer/live/run-summary.ts), so both say the same.
 *
 * - An occurrence stays `pending` (a possible link of the chain) from its `errorOccurred` until its
 *   run ends, except a retried attempt's error (handled at once: no chain holds it) and one
 *   journaled after the run already ended (nothing can make it a link any more).
 * - `runFailed` ends with its chain: `runFailed.chain`, or for a journal written before the failure
 *   model, the envelope and its causes (`causeOf`), each matched to a pending occurrence. A quiet
 *   external session whose last prompt failed (`externalRunIdle` with an error) ends the same way.
 * - `runCancelled` ends with SYSTEM_CANCELLED from its cause, `runInterrupted` with its error
 *   matched to its occurrence; `externalRunReopened` clears the ending; a completed run has none.
 */

/** A run's ending error as one object: its head link's fields, the root cause's code, the chain (head first). */
export interface RunEnding extends Omit<FailureLink, 'seq' | 'how' | 'rethrown'> {
  /** The code of the chain's last link (the root cause); equal to `code` for a one-link chain. */
  rootCode: string;
  /** Head (the ending error) first, root cause last. */
  chain: FailureLink[];
}

/** An error occurrence that may still become a link of its run's chain (the store's error row fits). */
export interface PendingOccurrence {
  seq: number;
  code: string;
  message: string;
  taskId: string | null;
  attempt: number | null;
  caught: boolean;
}

type ErrorOccurred = Extract<HivewatchEvent, { type: 'errorOccurred' }>;

/** Whether a new occurrence is pending: not a retried attempt's, and its run has not ended. */
export function staysPending(event: ErrorOccurred, runEnded: boolean): boolean {
  return !event.retrying && !runEnded;
}

/** The events that end a run, and so settle its pending occurrences. */
export function settlesPending(event: HivewatchEvent): boolean {
  switch (event.type) {
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'runCompleted':
    case 'externalRunIdle':
      return true;
    default:
      return false;
  }
}

/** The events that set or clear a run's ending error: those that end it, and reopening an external session. */
export function changesEnding(event: HivewatchEvent): boolean {
  return settlesPending(event) || event.type === 'externalRunReopened';
}

/** A run's pending occurrences after one more event (`ended`: the run had ended before it). */
export function nextPending(pending: readonly PendingOccurrence[], event: HivewatchEvent, ended: boolean): readonly PendingOccurrence[] {
  if (event.type === 'errorOccurred') {
    if (!staysPending(event, ended)) return pending;
    const c = event.error.correlation ?? {};
    const occurrence = {
      seq: event.seq,
      code: event.error.code,
      message: event.error.message,
      taskId: event.taskId ?? c.task ?? null,
      attempt: c.attempt ?? null,
      caught: event.caught,
    };
    return [...pending, occurrence];
  }
  return settlesPending(event) && pending.length > 0 ? [] : pending;
}

function linkOf(envelope: ErrorEnvelope, seq: number | null, how: FailureLink['how']): FailureLink {
  const c = envelope.correlation ?? {};
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

/**
 * The occurrence an envelope of the chain was journaled as: a pending one of the same code, task
 * and attempt (the envelope's correlation), preferring one with the same message (a rethrown error
 * is the caught envelope itself), then the newest. Each occurrence is one link at most.
 */
function matchPending<T extends PendingOccurrence>(pending: readonly T[], envelope: ErrorEnvelope, used: Set<number>): T | undefined {
  const c = envelope.correlation ?? {};
  let best: T | undefined;
  for (const row of pending) {
    if (used.has(row.seq) || row.code !== envelope.code || row.taskId !== (c.task ?? null) || row.attempt !== (c.attempt ?? null)) continue;
    const same = row.message === envelope.message;
    const bestSame = best?.message === envelope.message;
    if (best === undefined || (same && !bestSame) || (same === bestSame && row.seq > best.seq)) best = row;
  }
  if (best) used.add(best.seq);
  return best;
}

/**
 * The chain of a failure journaled without one (before the failure model): the ending envelope,
 * then each cause `causeOf` finds (`context.lastError` of POLICY_RETRY_LIMIT_EXCEEDED,
 * `context.cause` of a `throw "message"` in a catch), each matched to its pending occurrence.
 * Those were the only two ways an old journal linked errors, so `how` is exact for them. A head
 * whose occurrence a catch had caught went on to end the run: it was rethrown.
 */
function derivedChain(error: ErrorEnvelope, pending: readonly PendingOccurrence[]): FailureLink[] {
  const envelopes: ErrorEnvelope[] = [];
  for (let e: ErrorEnvelope | null = error; e !== null && envelopes.length < MAX_CAUSE_DEPTH; e = causeOf(e)) envelopes.push(e);
  const used = new Set<number>();
  return envelopes.map((envelope, i) => {
    const row = matchPending(pending, envelope, used);
    const how =
      i === envelopes.length - 1
        ? null
        : envelope.code === 'POLICY_RETRY_LIMIT_EXCEEDED'
          ? 'retry-limit'
          : envelope.code === 'USER_THROWN'
            ? 'thrown-in-catch'
            : null;
    const link = linkOf(envelope, row?.seq ?? null, how);
    return i === 0 && row?.caught === true ? { ...link, rethrown: true } : link;
  });
}

/**
 * The chain `event` ends its run with, given the run's pending occurrences before it: null when
 * it clears the ending (a reopened external session), undefined when it leaves the ending as it
 * was (every other event, `runCompleted` and a quiet external session without an error included).
 */
export function endingChainAt(event: HivewatchEvent, pending: readonly PendingOccurrence[]): readonly FailureLink[] | null | undefined {
  switch (event.type) {
    case 'externalRunIdle':
    case 'runFailed': {
      if (event.error === undefined) return undefined;
      return event.chain !== undefined && event.chain.length > 0 ? event.chain : derivedChain(event.error, pending);
    }
    case 'runCancelled':
      return [
        {
          seq: null,
          code: 'SYSTEM_CANCELLED',
          category: 'system',
          origin: 'system',
          message: event.cause.reason,
          step: event.correlation.step,
          taskId: null,
          attempt: null,
          how: null,
        },
      ];
    case 'runInterrupted':
      return [linkOf(event.error, matchPending(pending, event.error, new Set())?.seq ?? null, null)];
    case 'externalRunReopened':
      return null;
    default:
      return undefined;
  }
}

/** The ending error a chain (head first) makes: the head's fields, the root's code, the chain; null for none. */
export function endingOfChain(chain: readonly FailureLink[] | null): RunEnding | null {
  const head = chain?.[0];
  const root = chain?.[chain.length - 1];
  if (!chain || !head || !root) return null;
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
