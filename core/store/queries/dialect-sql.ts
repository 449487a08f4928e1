import { Dialect } from './plan.js';

/**
 * SQL fragments whose text differs between the engines (core/store/README.md, "One query code,
 * two dialects"). The SQLite text is the tuned original; the PostgreSQL text means the same
 * thing in a form PostgreSQL accepts. (The rollups' `disposition` is text on both engines, so
 * the integer truth values the old `handled` flag needed are gone.)
 */

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
