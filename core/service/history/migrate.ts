import { existsSync } from 'node:fs';
import { isPostgresUrl, isStoreError, openSqliteStore, SCHEMA_VERSION, StoreError, type HivewatchStore, type SqliteStore } from '../../store/index.js';
import { redactUrl } from '../../store/postgres/connection/url.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { copyHistory, type CopyOptions, type CopyReport } from './copy.js';
import { openHostStore } from './open.js';

/**
 * The two ends of moving a SQLite history into a team database (`hivewatch migrate`; copy.ts does
 * the copying). The command checks what the operator typed; opening each end, and telling the
 * operator's mistakes from a failed transaction, is the history's.
 */

/** Whether a location names a team database (`postgres://…`) rather than a SQLite file. */
export function isTeamDatabaseUrl(location: string): boolean {
  return isPostgresUrl(location);
}

/** A team database's URL as it may be printed: its password replaced. */
export function printableDatabaseUrl(url: string): string {
  return redactUrl(url);
}

/**
 * Whether a failed migrate is the operator's to fix (the file, the URL, a conflicting history),
 * said as it is; anything else failed one transaction, and a second migrate copies the rest.
 */
function isOperatorMistake(error: unknown): boolean {
  return isStoreError(error, 'invalid_argument') || isStoreError(error, 'corrupt');
}

function unreadable(path: string, error: unknown): StoreError {
  return new StoreError('invalid_argument', `cannot read ${path} as a Hivewatch database: ${(error as Error).message}`, { cause: error });
}

/** Refuses a source at another schema version than this Hivewatch copies. */
function checkVersion(path: string, version: number): void {
  if (version < SCHEMA_VERSION) {
    throw new StoreError(
      'invalid_argument',
      `${path} is at schema version ${version}, and this Hivewatch copies version ${SCHEMA_VERSION}: open it once with this Hivewatch ` +
        `(\`hivewatch runs --db ${path}\` migrates it), then migrate again`,
    );
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      'invalid_argument',
      `${path} is at schema version ${version}, newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  }
}

/**
 * A SQLite history opened to be copied: what `hivewatch migrate` holds of it (never the store
 * itself). A copy either ends `copied`, or `failed` in one transaction (a batch another migrate or
 * host wrote first, the server gone): what failed is not on the target, runs copied before it are
 * whole, and a second migrate copies the rest. The operator's mistakes (the file, the URL, a
 * conflicting history) and a target that does not open are thrown, said as they are.
 */
export interface MigrationSource {
  copyTo(url: string, options: CopyOptions): Promise<MigrationOutcome>;
  close(): Promise<void>;
}

type MigrationOutcome = { readonly copied: CopyReport } | { readonly failed: string };

/** The SQLite file, read-only, at this Hivewatch's schema version (a file is never changed by migrate). */
export function openMigrationSource(path: string): MigrationSource {
  const source = openSourceStore(path);
  return {
    copyTo: async (url, options) => {
      const target = await openMigrationTarget(url, options.dryRun ?? false);
      try {
        return { copied: await copyHistory(source, target, options) };
      } catch (error) {
        if (isOperatorMistake(error)) throw error;
        return { failed: error instanceof Error ? error.message : String(error) };
      } finally {
        await target?.close();
      }
    },
    close: () => source.close(),
  };
}

function openSourceStore(path: string): HivewatchStore {
  if (path === ':memory:' || !existsSync(path)) throw new StoreError('invalid_argument', `no such file: ${path}`);
  let sqlite: SqliteStore;
  try {
    sqlite = openSqliteStore({ path, readonly: true });
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    let version: number;
    try {
      version = sqlite.stats().schemaVersion;
    } catch (error) {
      throw unreadable(path, error);
    }
    checkVersion(path, version);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqliteContractStore(sqlite);
}

/**
 * The target, migrated to this schema by opening. A dry run opens it read-only and writes nothing;
 * a database without Hivewatch's schema yet is then an empty one (every run would be copied: null).
 * Opened as a host opens it: a recovery there ends a dead host's leftover agents on this machine.
 */
async function openMigrationTarget(url: string, dryRun: boolean): Promise<HivewatchStore | null> {
  try {
    return await openHostStore({ path: url, readonly: dryRun });
  } catch (error) {
    if (dryRun && error instanceof StoreError && / has no Hivewatch schema/.test(error.message)) return null;
    throw error;
  }
}
