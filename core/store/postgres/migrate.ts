import type pg from 'pg';
import { MIGRATIONS } from '../migrations/index.js';
import type { Migration } from '../migrations/migration.js';
import { StoreError } from '../store-error.js';

/**
 * PostgreSQL's runner of the schema's versions (core/store/migrations/). Versions are SQLite's
 * numbers, so one number means one schema on both engines: PostgreSQL's baseline creates version
 * 9 in one step (PostgreSQL support arrived with SQLite at 9), and every later version has its
 * PostgreSQL part beside SQLite's (a no-op step when PostgreSQL already has what it adds).
 * Applied versions are rows of `schema_version`.
 *
 * Several hosts may start against an empty database at once: every migration runs in one
 * transaction holding a transaction-scoped advisory lock, so the others wait, then read the
 * version the first one committed and find nothing left to do.
 */
const POSTGRES_MIGRATIONS = MIGRATIONS.filter((migration): migration is Migration & Required<Pick<Migration, 'postgres'>> => migration.postgres !== undefined);

/** The columns a text search matches (SQLite's `run_text` and `task_text`), each with a trigram index. */
export const TEXT_INDEXED_COLUMNS = [
  ['runs', 'id'],
  ['runs', 'flow'],
  ['runs', 'flow_name'],
  ['runs', 'last_error_message'],
  ['tasks', 'name'],
] as const;

const TEXT_INDEX_SQL = TEXT_INDEXED_COLUMNS.map(
  ([table, column]) => `CREATE INDEX IF NOT EXISTS ${table}_${column}_trgm ON ${table} USING gin (${column} gin_trgm_ops);`,
).join('\n');

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** "Hivewatch migrate" as an advisory lock key: the lock every migrating host queues on. */
const MIGRATION_LOCK_KEY = 0x4869_7665_6d67;

export interface MigrateResult {
  /** Versions this call applied (empty when the database was current). */
  applied: number[];
  /** Whether the trigram indexes for text search exist (pg_trgm could be created). */
  textIndexes: boolean;
  /** Things an operator should know (why text search scans instead of reading an index). */
  notes: string[];
}

const VERSION_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL
)`;

/** The database's schema version (0 when Hivewatch never migrated it). Reads only. */
export async function postgresSchemaVersion(client: pg.Pool | pg.PoolClient): Promise<number> {
  const table = await client.query<{ present: boolean }>("SELECT to_regclass('schema_version') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return 0;
  const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version');
  return rows[0]?.version ?? 0;
}

/** The same refusal SQLite gives (`migrate` in core/store/sqlite/migrate.ts). */
export function assertUnderstood(version: number): void {
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new StoreError(
      'corrupt',
      `database schema version ${version} is newer than this Hivewatch understands (${POSTGRES_SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  }
}

async function textIndexCount(client: pg.PoolClient): Promise<number> {
  const names = TEXT_INDEXED_COLUMNS.map(([table, column]) => `${table}_${column}_trgm`);
  const { rows } = await client.query<{ count: number }>(
    'SELECT COUNT(*)::int AS count FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)',
    [names],
  );
  return rows[0]?.count ?? 0;
}

/**
 * Creates pg_trgm and the trigram indexes when they are missing, in a savepoint: a database
 * where the extension cannot be created (not installed, no CREATE privilege) keeps its schema
 * and answers text searches by scanning, with a note saying why.
 */
async function ensureTextIndexes(client: pg.PoolClient, notes: string[]): Promise<boolean> {
  if ((await textIndexCount(client)) === TEXT_INDEXED_COLUMNS.length) return true;
  await client.query('SAVEPOINT text_indexes');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query(TEXT_INDEX_SQL);
    await client.query('RELEASE SAVEPOINT text_indexes');
    return true;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT text_indexes');
    notes.push(`text search scans without trigram indexes: CREATE EXTENSION pg_trgm failed (${(error as Error).message})`);
    return false;
  }
}

/**
 * Brings the database to `POSTGRES_SCHEMA_VERSION` (or `target`: tests build older schemas), once
 * across every host starting at the same time.
 */
export async function migratePostgres(pool: pg.Pool, now: () => number = Date.now, target = POSTGRES_SCHEMA_VERSION): Promise<MigrateResult> {
  const client = await pool.connect();
  const notes: string[] = [];
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(VERSION_TABLE_SQL);
      const current = await postgresSchemaVersion(client);
      assertUnderstood(current);
      const applied: number[] = [];
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version <= current || migration.version > target) continue;
        await migration.postgres(client);
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.postgresName ?? migration.name,
          now(),
        ]);
        applied.push(migration.version);
      }
      const textIndexes = await ensureTextIndexes(client, notes);
      await client.query('COMMIT');
      return { applied, textIndexes, notes };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  } finally {
    client.release();
  }
}
