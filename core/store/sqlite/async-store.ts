import { type HivewatchStore, StoreEngine } from '../contract.js';
import { bindReads } from '../bind-reads.js';
import { Dialect, type Query } from '../queries/plan.js';
import { READS } from '../queries/index.js';
import { usageQuery } from '../queries/usage.js';
import { issueStore } from '../issues/issues.js';
import type { SqliteStore } from './types.js';
import type { SqliteReadPool } from './read-pool.js';

/**
 * The SQLite engine behind the store contract. better-sqlite3 is synchronous, so each method does
 * its work at the call (a commit is durable before the promise is even returned) and answers with
 * a settled promise; a thrown error becomes a rejection, as on every engine. With a read pool
 * (read-pool.ts) the reads are answered later, from worker threads, and a write still at the call.
 */

function answer<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

type Method = (...args: never[]) => unknown;
type Promised<S, K extends keyof S> = { readonly [P in K]: S[P] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never };

/** The synchronous store's methods `keys`, each answering with a settled promise. */
function promised<S extends object, K extends keyof S>(sync: S, keys: readonly K[]): Promised<S, K> {
  const methods: Partial<Record<K, Method>> = {};
  for (const key of keys) {
    const method = sync[key] as Method;
    methods[key] = (...args: never[]) => answer(() => method.apply(sync, args));
  }
  return methods as Promised<S, K>;
}

/** The contract's writes and maintenance, the same on SQLite's synchronous face but answered at once. */
const PROMISED = [
  'appendEvents',
  'ingestExternal',
  'enqueueCommand',
  'completeCommand',
  'runHost',
  'setSetting',
  'secret',
  'recoverInterrupted',
  'replayRun',
  'verifyAggregates',
  'prune',
  'integrityCheck',
  'stats',
] as const satisfies readonly (keyof SqliteStore & keyof HivewatchStore)[];

/**
 * The SQLite store as the contract (what `openStore` returns for a path). With `pool`, the reads
 * (the table of reads, usage and the issues' reads) run on its worker threads and everything else
 * on the connection; closing ends the workers before the connection.
 */
export function sqliteContractStore(sqlite: SqliteStore, pool: SqliteReadPool | null = null): HivewatchStore {
  const read = <T>(query: Query<T>): Promise<T> => (pool ? pool.read(query) : answer(() => sqlite.readPlan(query)));
  return {
    engine: StoreEngine.sqlite,
    location: sqlite.path,
    readonly: sqlite.readonly,
    recovered: sqlite.recovered,
    issues: pool ? pooledIssues(sqlite, read) : sqlite.issues,
    ...bindReads(READS, Dialect.sqlite, read),
    ...promised(sqlite, PROMISED),
    usage: usageOf(sqlite, pool),
    runStatements: (plan) => answer(() => sqlite.runStatements(plan)),
    subscribe: (listener) => sqlite.subscribe(listener),
    // PRAGMA data_version changes when another connection committed anything (events, commands).
    changeToken: () => answer(() => String(sqlite.dataVersion())),
    watchChanges: () => () => undefined, // no push in SQLite: callers poll changeToken
    close: async () => {
      await pool?.close();
      sqlite.close();
    },
  };
}

/** `usage` on the pool or the connection; a bad read is a rejection either way, never a throw. */
function usageOf(sqlite: SqliteStore, pool: SqliteReadPool | null): HivewatchStore['usage'] {
  if (pool === null) return (read) => answer(() => sqlite.usage(read));
  return (read) => answer(() => usageQuery(Dialect.sqlite, read)).then((query) => pool.read(query));
}

/** The issues' reads on the pool, their one write (a status change) on the connection, as `runStatements` runs it. */
function pooledIssues(sqlite: SqliteStore, read: <T>(query: Query<T>) => Promise<T>): HivewatchStore['issues'] {
  return issueStore(Dialect.sqlite, read, (query) => answer(() => sqlite.runStatements(() => query)));
}
