import { storableText } from '../projection/storable.js';
import type { StatementCache } from './sql.js';

/**
 * Queries written once for both engines. A query is a generator: it yields the statements it
 * needs (`SqlStep`) and receives each one's rows back, so the same logic (filters, windows,
 * cursors, post-processing) runs synchronously over better-sqlite3 (`runSync`) and
 * asynchronously over PostgreSQL (`runAsync` with the engine's executor). Statements use `?`
 * placeholders; the PostgreSQL executor numbers them. Where the engines' SQL differs, the query
 * takes the `Dialect` and picks its fragment.
 */

export const Dialect = { sqlite: 'sqlite', postgres: 'postgres' } as const;
export type Dialect = (typeof Dialect)[keyof typeof Dialect];

export interface SqlStep {
  /** all: every row; get: the first row or undefined; run: a write, answered with `{ changes }`. */
  readonly mode: 'all' | 'get' | 'run';
  readonly sql: string;
  readonly params: readonly unknown[];
}

export type Query<T> = Generator<SqlStep, T, unknown>;

export function* all<R>(sql: string, params: readonly unknown[] = []): Query<R[]> {
  return (yield { mode: 'all', sql, params }) as R[];
}

export function* get<R>(sql: string, params: readonly unknown[] = []): Query<R | undefined> {
  return (yield { mode: 'get', sql, params }) as R | undefined;
}

export function* run(sql: string, params: readonly unknown[] = []): Query<{ changes: number }> {
  return (yield { mode: 'run', sql, params }) as { changes: number };
}

/**
 * A statement's parameters as the store keeps text (storable.ts rule 1: U+0000 and unpaired
 * surrogates become U+FFFD), on both engines: a lookup compares with what a write stored, a
 * PostgreSQL parameter never carries the U+0000 its text refuses, and an FTS5 phrase never ends
 * at one. The same array when nothing changes (the common case allocates nothing).
 */
function storableParams(params: readonly unknown[]): readonly unknown[] {
  const changes = params.some((p) => typeof p === 'string' && storableText(p) !== p);
  return changes ? params.map((p) => (typeof p === 'string' ? storableText(p) : p)) : params;
}

/** Runs a query over better-sqlite3 (prepared once per SQL text through the cache). */
export function runSync<T>(cache: StatementCache, query: Query<T>): T {
  let step = query.next();
  while (!step.done) {
    const { mode, sql } = step.value;
    const params = storableParams(step.value.params);
    const statement = cache.get(sql);
    let answer: unknown;
    if (mode === 'all') answer = statement.all(...params);
    else if (mode === 'get') answer = statement.get(...params);
    else answer = { changes: statement.run(...params).changes };
    step = query.next(answer);
  }
  return step.value;
}

/** Runs a query through an asynchronous executor (PostgreSQL), one statement at a time. */
export async function runAsync<T>(execute: (step: SqlStep) => Promise<unknown>, query: Query<T>): Promise<T> {
  let step = query.next();
  while (!step.done) step = query.next(await execute({ ...step.value, params: storableParams(step.value.params) }));
  return step.value;
}
