import { StoreError } from '../../store/store-error.js';

/**
 * How long a host waits for its database (docs/postgres.md, "When the server goes away"), as the
 * operator may set it for every host on a machine:
 *
 * - HIVEWATCH_JOURNAL_RETRY_MS: how long a running flow's journal writes are retried before the
 *   run stops as SYSTEM_EVENT_WRITE_FAILED (default 2 minutes, waits of 100 ms doubling to 3.2 s):
 *   long enough for an ordinary restart, minor-version upgrade or failover, during which runs
 *   wait at their next journal write rather than fail.
 * - HIVEWATCH_JOURNAL_WAIT_MS: how long `hivewatch run` / `resume` / `retry` wait, after such a
 *   stop, for the database to take the run's last events before exiting (default 5 minutes), so
 *   the run does not stay `running` in the database after the server is back.
 */

const JOURNAL_RETRY_ENV = 'HIVEWATCH_JOURNAL_RETRY_MS';
const JOURNAL_WAIT_ENV = 'HIVEWATCH_JOURNAL_WAIT_MS';
export const DEFAULT_JOURNAL_RETRY_MS = 2 * 60_000;
export const DEFAULT_JOURNAL_WAIT_MS = 5 * 60_000;
const FIRST_DELAY_MS = 100;
const LONGEST_DELAY_MS = 3_200;

type Env = Readonly<Record<string, string | undefined>>;

function millisecondsOf(env: Env, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\d{1,9}$/.test(text.trim())) throw new StoreError('invalid_argument', `${name} must be a whole number of milliseconds, got "${text}"`);
  return Number(text.trim());
}

/** Waits that double from 100 ms up to 3.2 s and add up to `totalMs` (the last one shortened to fit). */
export function retryDelaysWithin(totalMs: number): number[] {
  const delays: number[] = [];
  let left = totalMs;
  for (let next = FIRST_DELAY_MS; left > 0; next = Math.min(next * 2, LONGEST_DELAY_MS)) {
    delays.push(Math.min(next, left));
    left -= next;
  }
  return delays;
}

/** The journal's retry waits from HIVEWATCH_JOURNAL_RETRY_MS (DEFAULT_JOURNAL_RETRY_MS when unset). */
export function journalRetryDelays(env: Env): readonly number[] {
  return retryDelaysWithin(millisecondsOf(env, JOURNAL_RETRY_ENV) ?? DEFAULT_JOURNAL_RETRY_MS);
}

/** How long the CLI waits for its run's last events to be journaled, from HIVEWATCH_JOURNAL_WAIT_MS. */
export function journalWaitMs(env: Env): number {
  return millisecondsOf(env, JOURNAL_WAIT_ENV) ?? DEFAULT_JOURNAL_WAIT_MS;
}
