import { columnName, type ColumnKind, type TableSpec } from './table-specs.js';

/** Rows to positional SQL parameters and back, and the INSERT / UPSERT text of a table spec. */

/**
 * JSON of error envelopes already serialised once: an envelope is in the journal payloads of
 * `attemptFailed`, `errorOccurred` and `taskFailed`, stored on its attempt, its task (and a
 * failed run) and re-written when those rows change in later batches; it is stringified once.
 * Other JSON columns (a step's frontier, an error's context, checkpoint channels) are
 * written about once each and not remembered (a cache entry per value cost more than it saved).
 */
const jsonOf = new WeakMap<object, string>();

/** `JSON.stringify(value)` of an object that is never mutated, serialised once (see above). */
export function rememberedJson(value: object): string {
  let text = jsonOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonOf.set(value, text);
  }
  return text;
}

function toJson(value: unknown, remember: boolean): string {
  if (!remember || typeof value !== 'object' || value === null) return JSON.stringify(value);
  return rememberedJson(value);
}

interface Layout {
  keys: string[];
  kinds: ColumnKind[];
  /** JSON columns holding an error envelope (`error`): their text is remembered. */
  remember: boolean[];
}

/** Column keys and kinds of a spec as flat arrays (rowParams runs once per written row). */
const layouts = new WeakMap<TableSpec<unknown>, Layout>();

function layoutOf<R>(spec: TableSpec<R>): Layout {
  let layout = layouts.get(spec as TableSpec<unknown>);
  if (!layout) {
    layout = {
      keys: spec.columns.map(([key]) => key),
      kinds: spec.columns.map(([, kind]) => kind),
      remember: spec.columns.map(([key, kind]) => kind === 'json' && key === 'error'),
    };
    layouts.set(spec as TableSpec<unknown>, layout);
  }
  return layout;
}

/** Positional parameters for the spec's column order. Rows (and what they hold) are never mutated. */
export function rowParams<R>(spec: TableSpec<R>, row: R): unknown[] {
  const { keys, kinds, remember } = layoutOf(spec);
  const record = row as Record<string, unknown>;
  const params = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const value = record[keys[i] as string];
    if (value === undefined || value === null) params[i] = null;
    else {
      const kind = kinds[i];
      if (kind === 'bool') params[i] = value ? 1 : 0;
      else if (kind === 'json') params[i] = toJson(value, remember[i] as boolean);
      else params[i] = value;
    }
  }
  return params;
}

/** A row read back from the database (`SELECT *` keyed by column name; either engine). */
export function rowFromDb<R>(spec: TableSpec<R>, record: Record<string, unknown>): R {
  const row: Record<string, unknown> = {};
  for (const [key, kind] of spec.columns) {
    const value = record[columnName(key)];
    if (value === null || value === undefined) row[key] = null;
    else if (kind === 'bool') row[key] = value === 1 || value === 1n || value === true;
    // PostgreSQL hands a json / jsonb column back already parsed; SQLite keeps the text.
    else if (kind === 'json') row[key] = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    else row[key] = value;
  }
  return row as R;
}

/** `INSERT ... ON CONFLICT(key) DO UPDATE SET every other column`: never a delete, so no cascade. */
export function upsertSql<R>(spec: TableSpec<R>): string {
  const cols = spec.columns.map(([key]) => columnName(key));
  const keys = spec.key.map(columnName);
  const updates = cols.filter((c) => !keys.includes(c)).map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${spec.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

export function insertSql<R>(spec: TableSpec<R>): string {
  const cols = spec.columns.map(([key]) => columnName(key));
  return `INSERT INTO ${spec.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
}
