import type { EventOf } from '../../base/events.js';
import type { TaskRow } from './schema.js';

/** A task leaves its backoff (its next attempt started, it was skipped, or the task ended): no retry due, no usage-limit wait. */
export function outOfBackoff(r: TaskRow): void {
  r.nextAttemptAt = null;
  r.waitingUntil = null;
}

/**
 * An external session stopped by its usage limit waits like a usage-limit backoff (the run's
 * `waiting_until` and the `waiting-limit` filter follow); telemetry again lifts it. `r` is a copy.
 */
export function externalLimitTask(r: TaskRow, event: EventOf<'externalLimitReached'> | EventOf<'externalLimitLifted'>): TaskRow {
  if (event.type === 'externalLimitReached') {
    r.status = 'backoff';
    r.nextAttemptAt = event.resetAt;
    r.waitingUntil = event.resetAt;
  } else {
    r.status = 'running';
    outOfBackoff(r);
  }
  return r;
}
