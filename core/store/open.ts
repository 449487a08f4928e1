import type { HivewatchStore } from './contract.js';
import { isPostgresUrl, redactUrl } from './postgres/connection/url.js';
import { sqliteContractStore } from './sqlite/async-store.js';
import type { OpenStoreOptions } from './sqlite/types.js';
import { openSqliteStore } from './sqlite/store.js';

export { isPostgresUrl };

/** A `--db` value as it may be shown: a PostgreSQL URL without its password, a path as it is. */
export function printableLocation(location: string): string {
  return isPostgresUrl(location) ? redactUrl(location) : location;
}

/**
 * Opens the store a location names: a PostgreSQL URL (`postgres://…`, a team database shared by
 * many hosts) or a SQLite file (or ':memory:'). Migrates as needed, then recovers the runs of
 * hosts that are gone.
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
  return sqliteContractStore(openSqliteStore(options));
}
