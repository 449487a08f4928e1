import type { RunStatus } from '../base/events.js';

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
