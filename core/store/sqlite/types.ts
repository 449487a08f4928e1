import type Database from 'better-sqlite3';
import type { HivewatchStore } from '../contract.js';
import type { Dialect, Query } from '../queries/plan.js';
import type { UsageAnswer, UsageRead } from '../queries/usage.js';
import type { Synchronous } from './database.js';
import type { HostLeaseOptions } from '../hosts/host-lease.js';
import type { SqliteHostLease } from './lease.js';
import type { EndLeftovers } from '../hosts/recovery.js';

/**
 * The SQLite engine's types: how it is opened, and its synchronous face. One instance per
 * connection (store.ts); synchronous (better-sqlite3), so every answer is consistent with one
 * snapshot. Callers outside the store use the contract through `openStore`; this face is for
 * SQLite's own tools and tests (integrity pragmas, benchmarks, fault injection, migrate).
 */

export interface OpenStoreOptions {
  /**
   * A file path (its directory is created), ':memory:', or (for `openStore` only) a PostgreSQL
   * URL (`postgres://…`). See `defaultDatabasePath()`.
   */
  path: string;
  /** The clock of the store's own events (recovery) and of prune's cutoff. Default Date.now. */
  now?: () => number;
  /** better-sqlite3 native build for another ABI (Electron). */
  nativeBinding?: string;
  /** Open for reading only: no migration, no recovery, no writes. */
  readonly?: boolean;
  /** Default NORMAL (see database.ts for what that means for durability). */
  synchronous?: Synchronous;
  busyTimeoutMs?: number;
  /** Run start-up recovery on open (default true unless readonly). */
  recover?: boolean;
  /** Where a subscriber's exception goes (default: rethrown on a microtask, like an uncaught error). */
  onListenerError?: (error: unknown) => void;
  /** This host's lease (host-lease.ts): its length and the heartbeat's timer (tests inject one). */
  heartbeat?: Pick<HostLeaseOptions, 'leaseMs' | 'scheduler'>;
  /**
   * Process control for start-up recovery and later ones (recovery.ts `EndLeftovers`), given by
   * whoever opens the store to run flows (core/service's `openHostStore`); without it none is done.
   */
  endLeftovers?: EndLeftovers;
  /**
   * Reads on this many worker threads, each with a read-only connection (sqlite/read-pool.ts),
   * beside the one connection that writes: for a process that answers many reads at once (`serve`,
   * the window's main process). Used by `openStore` for a SQLite file opened writable; 0 or absent:
   * every read on the one connection (':memory:', read-only opens and PostgreSQL never use it).
   */
  readWorkers?: number;
}

/** A contract method answered at once: SQLite's connection is synchronous (better-sqlite3). */
type Answered<M> = M extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : M;

/** What only an engine that can push other connections' commits, or names itself, has. */
type AsyncOnly = 'engine' | 'location' | 'changeToken' | 'watchChanges';
/** Generic methods: a mapped type would lose their type parameter, so they are declared below. */
type Generic = 'usage' | 'runStatements';

/**
 * The SQLite store: the contract (contract.ts) with every answer synchronous, derived from it so
 * the two cannot drift, plus what only a local file has. `async-store.ts` wraps it as the
 * contract (`openStore`); the synchronous form serves tests, benches and `hivewatch migrate`.
 */
export type SqliteStore = { readonly [K in Exclude<keyof HivewatchStore, AsyncOnly | Generic>]: Answered<HivewatchStore[K]> } & {
  usage<R extends UsageRead>(read: R): UsageAnswer<R>;
  runStatements<T>(plan: (dialect: Dialect) => Query<T>): T;
  readonly path: string;
  /** The raw connection, for benchmarks, integrity checks and tests. */
  readonly database: Database.Database;
  /** This connection's host lease (null when read-only). */
  readonly lease: SqliteHostLease | null;
  /**
   * Changes whenever another connection (another process: a CLI run while the app is open)
   * commits to the database; `subscribe` only sees this store's own commits. Cheap to poll.
   */
  dataVersion(): number;
  /** One query (a read of queries/index.ts) on this connection, answered at once. */
  readPlan<T>(query: Query<T>): T;
};
