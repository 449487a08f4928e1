import type { HivewatchStore } from './contract.js';
import { SqliteContractStore } from './sqlite-async.js';
import { openSqliteStore, type OpenStoreOptions } from './store.js';

/** Whether a `--db` / HIVEWATCH_DB value names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Opens the store a location names: a PostgreSQL URL (`postgres://…`) opens the team database,
 * anything else is a SQLite file (or ':memory:'). Migrates as needed, then recovers the runs of
 * hosts that are gone.
 */
export async function openStore(options: OpenStoreOptions): Promise<HivewatchStore> {
  return new SqliteContractStore(openSqliteStore(options));
}
