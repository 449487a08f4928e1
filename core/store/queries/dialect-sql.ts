import { Dialect } from './plan.js';

/**
 * SQL fragments whose text differs between the engines (core/store/README.md, "One query code,
 * two dialects"). The SQLite text is the tuned original; the PostgreSQL text means the same
 * thing in a form PostgreSQL accepts: `caught`, `retrying` and `handled` are 0/1 INTEGER columns
 * there too, and PostgreSQL has no truth value for an integer (`integer OR integer` is an error).
 */

/** Whether an error row was handled (retried or caught), as a condition. */
export function handledCondition(dialect: Dialect, prefix = ''): string {
  return dialect === Dialect.postgres
    ? `(${prefix}caught = 1 OR ${prefix}retrying = 1)`
    : `(${prefix}caught OR ${prefix}retrying)`;
}

/** The same as a 0/1 value (compared with a parameter, selected, grouped by). */
export function handledValue(dialect: Dialect, prefix = ''): string {
  return dialect === Dialect.postgres ? `(CASE WHEN ${handledCondition(dialect, prefix)} THEN 1 ELSE 0 END)` : handledCondition(dialect, prefix);
}

/** 1 for an unhandled error row, 0 for a handled one (summed into `unhandled` counts). */
export function unhandledValue(dialect: Dialect): string {
  return dialect === Dialect.postgres ? `(CASE WHEN ${handledCondition(dialect)} THEN 0 ELSE 1 END)` : `NOT ${handledCondition(dialect)}`;
}

/** A 0/1 column as a condition (`CASE WHEN handled THEN …`). */
export function isSet(dialect: Dialect, column: string): string {
  return dialect === Dialect.postgres ? `${column} = 1` : column;
}

/**
 * A column as a filter term, with SQLite's `+column` hint (do not use this column's index) when
 * asked; PostgreSQL has no such hint and its planner weighs the filter by its own statistics.
 */
export function hinted(dialect: Dialect, column: string, avoidIndex: boolean): string {
  return avoidIndex && dialect === Dialect.sqlite ? `+${column}` : column;
}

/** Case-insensitive LIKE: SQLite's LIKE already is (for ASCII); PostgreSQL's is not. */
export function likeOperator(dialect: Dialect): 'LIKE' | 'ILIKE' {
  return dialect === Dialect.postgres ? 'ILIKE' : 'LIKE';
}
