import { CancelledError, HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { FailureChain } from './failure-chain.js';

/**
 * What travels up the program's threads when a thread does not end with a value: a failure with
 * its place in program order, or the cancellation of a branch whose fail-fast parallel died.
 */

/** A failure travelling up the threads, with its place in program order, which decides ties (rule 6). */
export class FlowFailure extends HivewatchError {
  constructor(
    /** The failure with its causes (rule 16): the head is what a catch binds and what the run fails with. */
    readonly chain: FailureChain,
    /** `programOrder` of the failing session or `throw`. */
    readonly rank: number,
  ) {
    // The chain's error as it is: same code, message and envelope, so a FlowFailure read as a
    // HivewatchError anywhere says exactly what `error` says.
    const { code, message, origin, recoverable, recoveryHint, context, timestamp, correlation, causedBy } = chain.error;
    super(code, { message, origin, recoverable, recoveryHint, context, timestamp, correlation, causedBy });
    this.name = 'FlowFailure';
  }

  get error(): HivewatchError {
    return this.chain.error;
  }
}

export const SIBLING_FAILED = 'cancelled: a sibling branch failed (fail-fast)';

/**
 * A thread stopped because a fail-fast parallel around it died (rule 14, F5). Unlike an
 * operator's cancel it runs the `finally` blocks it is inside (never a `catch`) on its way out;
 * `cleanups` are the failures of those blocks, which join the killing failure's chain at the
 * parallel's join.
 */
export class BranchCancelled extends CancelledError {
  constructor(readonly cleanups: readonly FlowFailure[] = []) {
    super(SIBLING_FAILED);
    this.name = 'BranchCancelled';
  }

  with(more: readonly FlowFailure[]): BranchCancelled {
    return more.length === 0 ? this : new BranchCancelled([...this.cleanups, ...more]);
  }
}

/** An error as the flow sees it: what a `catch (e)` binds and a continue parallel lists. */
export function errorView(error: HivewatchError): Record<string, unknown> {
  return {
    message: error.message,
    code: error.code,
    category: error.category,
    origin: error.origin,
    recoverable: error.recoverable,
  };
}
