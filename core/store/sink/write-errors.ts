import { isStoreError } from '../store-error.js';

/**
 * Why a journal write failed, as the sink needs to know it: was the batch *refused*
 * for what it holds (the same events fail the same way however often they are written again),
 * or is the database unreachable, busy, full or read-only for now (writing them again later may
 * succeed)? A refused batch is written around (sink-refusals.ts); anything else is retried and
 * kept. What is not recognised as a refusal counts as "for now": keeping events costs memory,
 * refusing them ends a run.
 */

/** PostgreSQL SQLSTATE classes and codes that judge the data: a data exception, a broken constraint, a value past a limit. */
const REFUSED_SQLSTATE = /^(22|23|54)|^42804$|^P0001$/;
/** SQLite result codes that judge the data (a CHECK, a trigger's RAISE, a row or string too big). */
const REFUSED_SQLITE = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/;

export function isRefusedWrite(error: unknown): boolean {
  if (isStoreError(error)) return error.kind === 'invalid_event' || error.kind === 'invalid_argument';
  // A bug in reducing or serialising the batch (a value JSON cannot write, a reducer that throws) fails again too.
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (code.startsWith('SQLITE_')) return REFUSED_SQLITE.test(code);
  // The pg driver's server errors carry a SQLSTATE (five characters) and a severity.
  const severity = (error as { severity?: unknown }).severity;
  return typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code) && REFUSED_SQLSTATE.test(code);
}
