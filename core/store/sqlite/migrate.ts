import type Database from 'better-sqlite3';
import { MIGRATIONS } from '../migrations/index.js';
import { StoreError } from '../store-error.js';

/**
 * SQLite's runner of the schema's versions (core/store/migrations/): `PRAGMA user_version` is the
 * number applied. Each version's `sqlite` part runs in its own IMMEDIATE transaction together
 * with its user_version bump, so a crash leaves the database at the previous version, never
 * between two.
 */

/** The newest version (the last migration's: versions increase but a branch may land after a later one). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration after the database's version, up to `target`. Returns the versions applied. */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): number[] {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError('corrupt', `database schema version ${current} is newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`);
  }
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    const up = migration.sqlite;
    if (!up || migration.version <= current || migration.version > target) continue;
    // The version is read again under the write lock: another process may have migrated meanwhile.
    const ran = db
      .transaction(() => {
        if (schemaVersion(db) >= migration.version) return false;
        up(db);
        db.pragma(`user_version = ${migration.version}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}
