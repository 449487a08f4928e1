import type { TaskRow } from './schema.js';

/** A task leaves its backoff (its next attempt started, it was skipped, or the task ended): no retry due, no usage-limit wait. */
export function outOfBackoff(r: TaskRow): void {
  r.nextAttemptAt = null;
  r.waitingUntil = null;
}
