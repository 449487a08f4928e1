import { resolve } from 'node:path';
import type { HivewatchStore } from './contract.js';
import { isPostgresUrl, redactUrl } from './postgres/connection/url.js';
import { sqliteContractStore } from './sqlite/async-store.js';
import type { OpenStoreOptions, SqliteStore } from './sqlite/types.js';
import { openSqliteStore } from './sqlite/store.js';
import { SqliteReadPool } from './sqlite/read-pool.js';
import { checkedReadWorkers } from './sqlite/read-workers.js';

export { isPostgresUrl };

/** A `--db` value as it may be shown: a PostgreSQL URL without its password, a path as it is. */
export function printableLocation(location: string): string {
  return isPostgresUrl(location) ? redactUrl(location) : location;
}

/**
 * Opens the store a location names: a PostgreSQL URL (`postgres://…`, a team database shared by
 * many hosts) or a SQLite file (or ':memory:'). Migrates as needed, then recovers the runs of
 * hosts that are gone. `readWorkers` (a SQLite file opened writable) runs the reads on that
 * many worker threads beside the writing connection (sqlite/read-pool.ts).
 */
export async function openStore(options: OpenStoreOptions): Promise<HivewatchStore> {
  if (isPostgresUrl(options.path)) {
    // Loaded only for a team database: the driver costs every SQLite start ~40 ms otherwise.
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore({
      url: options.path,
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.readonly !== undefined ? { readonly: options.readonly } : {}),
      ...(options.recover !== undefined ? { recover: options.recover } : {}),
      ...(options.onListenerError !== undefined ? { onListenerError: options.onListenerError } : {}),
      ...(options.endLeftovers !== undefined ? { endLeftovers: options.endLeftovers } : {}),
      ...(options.heartbeat?.leaseMs !== undefined ? { leaseMs: options.heartbeat.leaseMs } : {}),
      ...(options.heartbeat?.scheduler !== undefined ? { heartbeatScheduler: options.heartbeat.scheduler } : {}),
    });
  }
  const workers = checkedReadWorkers(options.readWorkers ?? 0);
  const sqlite = openSqliteStore(options);
  // A pool only where a second connection sees the same data and the store writes: a file opened
  // writable (an in-memory database is the connection's own; a read-only open serves one reader).
  if (workers === 0 || options.path === ':memory:' || options.readonly === true) return sqliteContractStore(sqlite);
  return sqliteContractStore(sqlite, await openReadPool(sqlite, options, workers));
}

async function openReadPool(sqlite: SqliteStore, options: OpenStoreOptions, size: number): Promise<SqliteReadPool> {
  try {
    return await SqliteReadPool.open({
      // The workers open the file the connection opened, whatever the working directory becomes.
      path: resolve(options.path),
      size,
      ...(options.nativeBinding !== undefined ? { nativeBinding: options.nativeBinding } : {}),
      ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
      fallback: (query) => sqlite.readPlan(query),
    });
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
