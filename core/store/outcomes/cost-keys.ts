import { fingerprintOf } from '../projection/fingerprint.js';
import type { RunRow } from '../projection/schema.js';

/**
 * What failure costs (migration 21): every counted attempt's spend falls in exactly one of three
 * outcomes, so the three always add up to the total the usage tables keep.
 *
 * - `failed`: every attempt of a run that ended failed, keyed by the run's ending error (its
 *   category, origin, code, the chain's root code and the issue's fingerprint), so the figure
 *   follows the Errors screen's filters as the failure counts do.
 * - `retried`: a failed attempt of a run that did not end failed (it recovered, was caught, is
 *   still running, or was cancelled or interrupted), keyed by that attempt's own error.
 * - `succeeded`: a succeeded attempt of a run that did not end failed; no error keys.
 *
 * Spend is counted when it was spent (the attempt's end), like the usage tables: a run that
 * fails later moves its attempts' spend to `failed` in the hours and days they were spent.
 */

export const COST_OUTCOMES = ['failed', 'retried', 'succeeded'] as const;
export type CostOutcome = (typeof COST_OUTCOMES)[number];

export const COST_GRAINS = ['hour', 'day'] as const;
export type CostGrain = (typeof COST_GRAINS)[number];
export const COST_TABLE: Record<CostGrain, string> = { hour: 'cost_rollups_hour', day: 'cost_rollups_day' };

/** The error keys of a cost bucket ('' each for succeeded work). */
export interface CostKeys {
  category: string;
  origin: string;
  code: string;
  rootCode: string;
  fingerprint: string;
}

const NO_KEYS: CostKeys = { category: '', origin: '', code: '', rootCode: '', fingerprint: '' };

/** A failed run's keys (its ending error, as its failure is counted); null while the run has not ended failed. */
export function fateOf(run: Pick<RunRow, 'status' | 'endingCode' | 'endingCategory' | 'endingOrigin' | 'endingMessage' | 'endingRootCode'>): CostKeys | null {
  if (run.status !== 'failed' || run.endingCode === null) return null;
  const category = run.endingCategory ?? '';
  const origin = run.endingOrigin ?? '';
  const code = run.endingCode;
  return {
    category,
    origin,
    code,
    rootCode: run.endingRootCode ?? code,
    fingerprint: fingerprintOf(category, code, origin, run.endingMessage ?? '').fingerprint,
  };
}

/** A failed attempt's own error as its cost keys (the root code is its own code). */
export function attemptErrorKeys(error: { category: string; code: string; origin: string; message: string }): CostKeys {
  return {
    category: error.category,
    origin: error.origin,
    code: error.code,
    rootCode: error.code,
    fingerprint: fingerprintOf(error.category, error.code, error.origin, error.message).fingerprint,
  };
}

export function sameFate(a: CostKeys | null, b: CostKeys | null): boolean {
  if (a === null || b === null) return a === b;
  return a.category === b.category && a.origin === b.origin && a.code === b.code && a.rootCode === b.rootCode && a.fingerprint === b.fingerprint;
}

/** Where one attempt's spend goes: its run's failure when the run ended failed, else its own outcome. */
export function costBucketOf(fate: CostKeys | null, attempt: { failed: boolean; error: CostKeys | null }): { outcome: CostOutcome; keys: CostKeys } {
  if (fate !== null) return { outcome: 'failed', keys: fate };
  if (attempt.failed) return { outcome: 'retried', keys: attempt.error ?? NO_KEYS };
  return { outcome: 'succeeded', keys: NO_KEYS };
}

/** The summed columns of a cost rollup row, in order. */
export const COST_SUMS = ['attempts', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_usd', 'unknown_cost_attempts'] as const;

/** The key columns of a cost rollup row, in its primary key's order. */
export const COST_KEY = ['bucket', 'flow', 'outcome', 'category', 'origin', 'code', 'root_code', 'fingerprint'] as const;

/**
 * The same bucket in SQL, for an `attempt_usage` row `u` LEFT JOINed to its run's `run_usage`
 * row `r` (whose `fate_*` columns hold the run's failure while it is failed): the migration's
 * backfill, prune, a window's partial edges and the conformance suite's plain GROUP BY use it.
 */
const whenFailed = 'r.fate_fingerprint IS NOT NULL';
const keyed = (fate: string, own: string): string => `CASE WHEN ${whenFailed} THEN r.${fate} WHEN u.failed = 1 THEN COALESCE(u.${own}, '') ELSE '' END`;
export const COST_BUCKET_SQL = {
  outcome: `CASE WHEN ${whenFailed} THEN 'failed' WHEN u.failed = 1 THEN 'retried' ELSE 'succeeded' END`,
  category: keyed('fate_category', 'err_category'),
  origin: keyed('fate_origin', 'err_origin'),
  code: keyed('fate_code', 'err_code'),
  root_code: keyed('fate_root_code', 'err_code'),
  fingerprint: keyed('fate_fingerprint', 'err_fingerprint'),
} as const;

/** One attempt_usage row `u` as the summed columns (COST_SUMS' order), summed over a GROUP BY. */
export const GROUPED_COST_SUMS = `COUNT(*) AS attempts, SUM(COALESCE(u.input_tokens, 0)) AS input_tokens, SUM(COALESCE(u.output_tokens, 0)) AS output_tokens,
  SUM(COALESCE(u.cache_read_tokens, 0)) AS cache_read_tokens, SUM(COALESCE(u.cache_write_tokens, 0)) AS cache_write_tokens,
  SUM(COALESCE(u.cost_usd, 0)) AS cost_usd, SUM(CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END) AS unknown_cost_attempts`;

/** attempt_usage `u` with its run's fate `r`: what every SQL form of the bucket reads from. */
export const ATTEMPTS_WITH_FATE = 'attempt_usage AS u LEFT JOIN run_usage AS r ON r.run_id = u.run_id';
