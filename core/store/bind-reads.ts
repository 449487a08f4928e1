import type { Dialect, Query } from './queries/plan.js';

/**
 * Binding a table of reads (queries/index.ts) to an engine: each entry is a generator
 * `(dialect, …args) => Query<T>`, and its bound method is `(…args) => run(generator(dialect,
 * …args))`. An engine gives only how one query runs (SQLite on its connection, PostgreSQL in one
 * snapshot); the methods, their names and their types all come from the table.
 */

/** A table of reads: method name → query generator. */
export type ReadTable = Readonly<Record<string, (dialect: Dialect, ...args: never[]) => Query<unknown>>>;

type ReadArgs<P> = P extends (dialect: Dialect, ...args: infer A) => Query<unknown> ? A : never;
type ReadAnswer<P> = P extends (...args: never[]) => Query<infer T> ? T : never;

/** The table's reads as store methods answering with a promise (the contract's). */
export type BoundReads<T extends ReadTable> = { readonly [K in keyof T]: (...args: ReadArgs<T[K]>) => Promise<ReadAnswer<T[K]>> };
/** The same reads answered at once (SQLite's synchronous connection). */
export type AnsweredReads<T extends ReadTable> = { readonly [K in keyof T]: (...args: ReadArgs<T[K]>) => ReadAnswer<T[K]> };

/** How an engine runs one query, answering with a promise. */
type RunLater = <R>(query: Query<R>) => Promise<R>;

function bind(table: ReadTable, dialect: Dialect, run: (query: Query<unknown>) => unknown): Record<string, (...args: never[]) => unknown> {
  const bound: Record<string, (...args: never[]) => unknown> = {};
  for (const [name, read] of Object.entries(table)) {
    bound[name] = (...args: never[]) => run(read(dialect, ...args));
  }
  return bound;
}

/** The table's reads, each run by `run` (which answers with a promise). */
export function bindReads<T extends ReadTable>(table: T, dialect: Dialect, run: RunLater): BoundReads<T> {
  return bind(table, dialect, run) as BoundReads<T>;
}

/** What a class built on `readsBase` defines: how one query runs on its engine. */
interface QueryRunner {
  readPlan(query: Query<unknown>): unknown;
}

function readsBaseClass(table: ReadTable, dialect: Dialect): abstract new () => object {
  abstract class Reads {
    constructor() {
      // The subclass's readPlan is on its prototype already, so it is there when a read is called.
      const engine = this as unknown as QueryRunner;
      Object.assign(
        this,
        bind(table, dialect, (query) => engine.readPlan(query)),
      );
    }
  }
  return Reads;
}

/**
 * A base class for an engine's store: every read of `table` as a member, run by the subclass's
 * `readPlan(query)` (which must answer with a promise; the conformance suites call every read on
 * every engine, so a store without it fails them).
 */
export function readsBase<T extends ReadTable>(table: T, dialect: Dialect): abstract new () => BoundReads<T> {
  return readsBaseClass(table, dialect) as abstract new () => BoundReads<T>;
}

/** `readsBase` for a store whose `readPlan` answers at once (SQLite's synchronous connection). */
export function answeredReadsBase<T extends ReadTable>(table: T, dialect: Dialect): abstract new () => AnsweredReads<T> {
  return readsBaseClass(table, dialect) as abstract new () => AnsweredReads<T>;
}
