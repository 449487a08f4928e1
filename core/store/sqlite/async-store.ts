import { type HivewatchStore, StoreEngine } from '../contract.js';
import { bindReads } from '../bind-reads.js';
import { Dialect } from '../queries/plan.js';
import { READS } from '../queries/index.js';
import type { SqliteStore } from './types.js';

/**
 * The SQLite engine behind the store contract. better-sqlite3 is synchronous, so each method does
 * its work at the call (a commit is durable before the promise is even returned) and answers with
 * a settled promise; a thrown error becomes a rejection, as on every engine.
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
  'close',
] as const satisfies readonly (keyof SqliteStore & keyof HivewatchStore)[];

/** The SQLite store as the contract (what `openStore` returns for a path). */
export function sqliteContractStore(sqlite: SqliteStore): HivewatchStore {
  return {
    engine: StoreEngine.sqlite,
    location: sqlite.path,
    readonly: sqlite.readonly,
    recovered: sqlite.recovered,
    issues: sqlite.issues,
    ...bindReads(READS, Dialect.sqlite, (query) => answer(() => sqlite.readPlan(query))),
    ...promised(sqlite, PROMISED),
    usage: (read) => answer(() => sqlite.usage(read)),
    runStatements: (plan) => answer(() => sqlite.runStatements(plan)),
    subscribe: (listener) => sqlite.subscribe(listener),
    // PRAGMA data_version changes when another connection committed anything (events, commands).
    changeToken: () => answer(() => String(sqlite.dataVersion())),
    watchChanges: () => () => undefined, // no push in SQLite: callers poll changeToken
  };
}
