import { randomUUID } from 'node:crypto';

/**
 * A run's id: `run_` and 16 hex digits of a random UUID. Every process that starts a run (the
 * engine, a run refused before it started) names it the same way, so the prefix says what an id
 * is in a log line or a URL.
 */
export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}
