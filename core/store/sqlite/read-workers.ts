import { StoreError } from '../store-error.js';

/**
 * How many read workers (read-pool.ts) a process that answers the window gives its SQLite store:
 * `serve` and the Electron main process read HIVEWATCH_READ_WORKERS, else the default. One-shot
 * CLI commands open no pool whatever it says (starting workers cost more than their few reads).
 * docs/decisions/0037-reads-in-parallel.md says why the default is what it is.
 */

export const READ_WORKERS_ENV = 'HIVEWATCH_READ_WORKERS';
/**
 * Off: on the two-core machine the product is measured on, the Errors screen's requests sent at
 * once were no faster with two workers than on the one connection, and each worker costs a thread
 * start (docs/benches.md, "Reads on worker threads"). HIVEWATCH_READ_WORKERS=2 turns them on.
 */
export const DEFAULT_READ_WORKERS = 0;
/** The most a store may be given: each is a thread and a connection with its own page cache. */
const MAX_READ_WORKERS = 16;

/** `count` when it is a whole number from 0 to MAX_READ_WORKERS; else a clear `invalid_argument`. */
export function checkedReadWorkers(count: number, source = 'readWorkers', given = String(count)): number {
  if (!Number.isInteger(count) || count < 0 || count > MAX_READ_WORKERS) {
    throw new StoreError('invalid_argument', `${source} must be a whole number from 0 (every read on the one connection) to ${MAX_READ_WORKERS}, got ${given}`);
  }
  return count;
}

/** HIVEWATCH_READ_WORKERS as a count (DEFAULT_READ_WORKERS when unset or blank). */
export function readWorkersOf(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[READ_WORKERS_ENV];
  if (text === undefined || text.trim() === '') return DEFAULT_READ_WORKERS;
  const trimmed = text.trim();
  return checkedReadWorkers(/^\d{1,3}$/.test(trimmed) ? Number(trimmed) : Number.NaN, READ_WORKERS_ENV, `"${text}"`);
}
