import { CancelledError } from '../../base/errors/hivewatch-error.js';
import type { HivewatchEventBody } from '../../base/events.js';

/**
 * A run's cancellation (rules 9–11, 18): the operator's command, the epoch it bumps, and the two
 * signals it raises. The first cancel is accepted: it is journaled, the run moves to
 * `cancelling`, the epoch goes up (results of the old epoch are late, rule 12) and what runs is
 * told to stop. A second cancel while cancelling forces it: what still runs gets SIGKILL at once
 * and the run ends with `runCancelled {forced: true}`; a third changes nothing.
 */

export interface CancelCommand {
  commandId: string;
  reason: string;
}

export class RunCancellation {
  private command: CancelCommand | null = null;
  private epochValue = 0;
  private readonly stopController = new AbortController();
  private readonly killController = new AbortController();

  /** The accepted cancel, or null while nobody asked. */
  get requested(): CancelCommand | null {
    return this.command;
  }

  get epoch(): number {
    return this.epochValue;
  }

  /** Raised by the accepted cancel: attempts stop (grace, then SIGKILL). */
  get stop(): AbortSignal {
    return this.stopController.signal;
  }

  /** Raised by a second cancel while cancelling: what still runs is killed now. */
  get killNow(): AbortSignal {
    return this.killController.signal;
  }

  get forced(): boolean {
    return this.killController.signal.aborted;
  }

  /** Why the run is cancelled (a run that cancelled itself without a command says so plainly). */
  get reason(): string {
    return this.command?.reason ?? 'cancelled';
  }

  /**
   * Takes a cancel of a run that has not ended; true when it was accepted. `emit` journals what
   * happens in order; `onCancelling` moves the run's status before `runCancelling` is journaled,
   * so a listener of that event already reads `cancelling`.
   */
  request(command: CancelCommand, emit: (body: HivewatchEventBody) => void, onCancelling: () => void): boolean {
    const { commandId, reason } = command;
    if (this.command !== null) {
      const forcing = !this.forced;
      emit({ type: 'cancelRequested', commandId, reason, alreadyCancelling: true, ...(forcing ? { forced: true } : {}) });
      if (forcing) this.killController.abort(new CancelledError(reason));
      return false;
    }
    emit({ type: 'cancelRequested', commandId, reason, alreadyCancelling: false });
    this.command = command;
    onCancelling();
    this.epochValue++;
    emit({ type: 'runCancelling', epoch: this.epochValue, commandId });
    this.stopController.abort(new CancelledError(reason));
    return true;
  }
}
