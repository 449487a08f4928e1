import type { HivewatchEvent } from '../base/events.js';
import type { CommittedListener } from './contract.js';

/**
 * Tells every subscriber about a committed batch (both engines). A listener's failure must not
 * undo or block a committed write, nor starve the others: it goes to `onError`.
 */
export function notifyCommitted(
  listeners: Iterable<CommittedListener>,
  onError: (error: unknown) => void,
  events: readonly HivewatchEvent[],
  walls: readonly number[],
  commitSeqs: readonly number[],
): void {
  if (events.length === 0) return;
  for (const listener of listeners) {
    try {
      listener(events, walls, commitSeqs);
    } catch (error) {
      onError(error);
    }
  }
}
