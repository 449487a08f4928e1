import type { HivewatchEvent, RunStatus } from '../base/events.js';

/**
 * Which run statuses mean what, for the store's queries and recovery, the service's checks and
 * the window alike.
 */

/** A run in one of these has ended: it takes no command and its journal is complete. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'interrupted'];

/** A run in one of these has not ended: a host owns it (or recovery must). */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'cancelling'];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status);
}

export function isActive(status: RunStatus): boolean {
  return ACTIVE_RUN_STATUSES.includes(status);
}

/**
 * The status an event ends its run with, for the store's run row and the window's live row alike:
 * a quiet external session ends `failed` when its last prompt failed, else `completed`. Null for
 * an event that does not end the run.
 */
export function endedStatusOf(event: HivewatchEvent): RunStatus | null {
  switch (event.type) {
    case 'runCompleted':
      return 'completed';
    case 'runFailed':
      return 'failed';
    case 'runCancelled':
      return 'cancelled';
    case 'runInterrupted':
      return 'interrupted';
    case 'externalRunIdle':
      return event.error ? 'failed' : 'completed';
    default:
      return null;
  }
}
