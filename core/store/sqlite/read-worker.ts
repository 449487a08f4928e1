/**
 * What one read worker (read-pool.ts) runs in its thread, and the messages it exchanges with the
 * pool. The worker's code is a script evaluated in the thread (`new Worker(source, { eval: true })`)
 * rather than a module file: the same text runs from the TypeScript sources (tests) and from the
 * build (dist/, the Electron app) with no file to copy or resolve beside the compiled one, and it
 * needs nothing of Hivewatch but the better-sqlite3 module the main thread resolved.
 *
 * The worker owns one read-only connection on the database file (WAL: it reads beside the
 * writer and never blocks it). A query's steps arrive one at a time; its first step opens a
 * read transaction (BEGIN: the snapshot is taken at its first SELECT) and `end` closes it, so every
 * statement of one query reads one snapshot, as the store's own connection does. Only statements
 * that return rows are run: a step that would write is refused here as well as by the pool.
 */

/** What the pool gives the worker to open its connection with. */
export interface ReadWorkerData {
  /** better-sqlite3's module, as the main thread resolved it. */
  readonly driver: string;
  readonly path: string;
  /** better-sqlite3's native build for another ABI (Electron), as the store's connection uses. */
  readonly nativeBinding: string | null;
  readonly busyTimeoutMs: number;
}

/** Pool → worker: one statement of a query (`first`: it opens the query's transaction), a query's end, or close. */
export type ToReader =
  | { readonly kind: 'step'; readonly first: boolean; readonly mode: 'all' | 'get'; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly kind: 'end' }
  | { readonly kind: 'close' };

/** Worker → pool: its connection is open, or a step's answer (rows, or the error that statement threw). */
export type FromReader =
  | { readonly kind: 'ready' }
  | { readonly kind: 'rows'; readonly rows: unknown }
  | { readonly kind: 'failed'; readonly message: string; readonly code: string | null };

/**
 * The worker's script (CommonJS, evaluated). The pragmas are the store connection's that matter
 * to a reader (database.ts): the busy timeout and the page cache; WAL is the file's own mode,
 * set by the writer. No SQL function, collation or extension is registered on the store's
 * connection, so a reader needs none (FTS5 is compiled into better-sqlite3).
 */
export const READ_WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, {
  readonly: true,
  fileMustExist: true,
  ...(workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {}),
});
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('cache_size = -16384');
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};
const begin = db.prepare('BEGIN');
const commit = db.prepare('COMMIT');
const finish = () => {
  if (db.inTransaction) commit.run();
};
parentPort.on('message', (message) => {
  if (message.kind === 'close') {
    finish();
    db.close();
    parentPort.close();
    return;
  }
  if (message.kind === 'end') {
    finish();
    return;
  }
  try {
    if (message.first) {
      finish();
      begin.run();
    }
    const statement = prepared(message.sql);
    if (!statement.reader || (message.mode !== 'all' && message.mode !== 'get')) {
      throw new Error('a read worker runs only statements that return rows, not: ' + message.sql.slice(0, 80));
    }
    const rows = message.mode === 'all' ? statement.all(...message.params) : statement.get(...message.params);
    parentPort.postMessage({ kind: 'rows', rows });
  } catch (error) {
    const code = error !== null && typeof error === 'object' && typeof error.code === 'string' ? error.code : null;
    parentPort.postMessage({ kind: 'failed', message: String(error instanceof Error ? error.message : error), code });
  }
});
parentPort.postMessage({ kind: 'ready' });
`;
