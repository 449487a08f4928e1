import type pg from 'pg';
import { columnName, type TableSpec } from '../../projection/table-specs.js';

/**
 * Multi-row statements: many rows in one `INSERT ... VALUES (...), (...)` (one round trip instead
 * of one per row). Parameters travel untyped, so INSERT coerces each to its column's type: the
 * same statement works whether a flag column is integer or boolean, a JSON column text or jsonb.
 */

/** PostgreSQL's limit on bound parameters per statement (the wire protocol's int16 count). */
const MAX_PARAMS = 65_535;

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** `($1, $2), ($3, $4)` for `rows` rows of `width` columns; `slot` may make a column's placeholder an expression. */
function valuesList(rows: number, width: number, slot?: (column: number, placeholder: string) => string): string {
  const groups = new Array<string>(rows);
  let n = 1;
  for (let r = 0; r < rows; r += 1) {
    const slots = new Array<string>(width);
    for (let c = 0; c < width; c += 1) slots[c] = slot ? slot(c, `$${n++}`) : `$${n++}`;
    groups[r] = `(${slots.join(', ')})`;
  }
  return groups.join(', ');
}

/** A statement shape: `${head} VALUES ... ${tail}` over rows of `width` parameters. */
export interface MultiRow {
  head: string;
  tail: string;
  width: number;
  /** A column whose value is an expression of its parameter (see valuesList). */
  slot?: (column: number, placeholder: string) => string;
}

/**
 * Writes `rows` (each `width` parameters) in as few statements as the parameter limit allows,
 * in the order given (callers sort rows by key so concurrent writers lock them in one order).
 * Returns the statements' summed row counts, and their returned rows when the tail has RETURNING.
 */
export async function writeRows<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: Queryable,
  shape: MultiRow,
  rows: readonly (readonly unknown[])[],
): Promise<{ count: number; rows: R[] }> {
  const perStatement = Math.floor(MAX_PARAMS / shape.width);
  let count = 0;
  const returned: R[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    for (const row of chunk) for (const value of row) params.push(value);
    const result = await client.query<R>(`${shape.head} VALUES ${valuesList(chunk.length, shape.width, shape.slot)} ${shape.tail}`, params);
    count += result.rowCount ?? 0;
    for (const row of result.rows) returned.push(row);
  }
  return { count, rows: returned };
}

/** Every column of a spec, in its order; on a key conflict every other column is overwritten. */
export function specUpsert<R>(spec: TableSpec<R>): MultiRow {
  const cols = spec.columns.map(([key]) => columnName(key));
  const keys = spec.key.map(columnName);
  const updates = cols.filter((c) => !keys.includes(c)).map((c) => `${c} = excluded.${c}`);
  return {
    head: `INSERT INTO ${spec.table} (${cols.join(', ')})`,
    tail: `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${updates.join(', ')}`,
    width: cols.length,
  };
}

export function specInsert<R>(spec: TableSpec<R>): MultiRow {
  const cols = spec.columns.map(([key]) => columnName(key));
  return { head: `INSERT INTO ${spec.table} (${cols.join(', ')})`, tail: '', width: cols.length };
}

/** Orders rows by their first `keyWidth` values (numbers numerically, text by code unit). */
export function byKey(keyWidth: number): (a: readonly unknown[], b: readonly unknown[]) => number {
  return (a, b) => {
    for (let i = 0; i < keyWidth; i += 1) {
      const x = a[i] as string | number;
      const y = b[i] as string | number;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
}
