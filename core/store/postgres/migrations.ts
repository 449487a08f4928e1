import type pg from 'pg';
import { Dialect, runAsync } from '../queries/plan.js';
import { settleHistory } from '../projection/settle-history.js';
import { StoreError } from '../store-error.js';
import { executorOf } from './execution.js';
import { ALERT_TABLES_POSTGRES } from './alerts-sql.js';
import { usageRollupsSql } from '../migration-16.js';
import { USAGE_LIMIT_WAIT_SQL } from '../migration-17.js';
import { runsAtScaleSql } from '../migration-19.js';
import { groupCountsSql } from '../migration-20.js';
import { outcomesKeyBackfill, outcomesMigrationSql } from '../outcomes/migration-21.js';
import { issueFailureRollupsSql } from '../migration-22.js';
import { labelFactsSql } from '../migration-23.js';
import { agentSpawnsSql } from '../migration-24.js';
import { approvalWaitsSql } from '../migration-25.js';
import { alertChannelsSql } from '../migration-26.js';
import { attemptTelemetrySql } from '../migration-27.js';
import { BASELINE_SQL, FAILURE_MODEL_SQL, TEXT_INDEXED_COLUMNS, TEXT_INDEX_SQL } from './schema-sql.js';
import { ISSUE_LOG_SQL } from './migration-14.js';
import { ERROR_GROUP_FACTS_SQL } from './migration-18.js';

/**
 * PostgreSQL's schema history. Versions are SQLite's numbers (`core/store/migrations.ts`), so
 * one number means one schema on both engines: the baseline creates version 9 in one step
 * (PostgreSQL support arrived with SQLite at 9), and a later SQLite migration N gets its
 * PostgreSQL twin here at N (a no-op step when PostgreSQL already has what it adds). Applied versions are rows of `schema_version`.
 *
 * Several hosts may start against an empty database at once: every migration runs in one
 * transaction holding a transaction-scoped advisory lock, so the others wait, then read the
 * version the first one committed and find nothing left to do.
 */
interface PostgresMigration {
  version: number;
  name: string;
  up(client: pg.PoolClient): Promise<void>;
}

const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 9,
    name: 'baseline: the schema of SQLite version 9 (journal, projections, rollups, groups, commands, otel, hosts)',
    up: async (client) => {
      await client.query(BASELINE_SQL);
    },
  },
  {
    version: 10,
    name: 'failure model: error dispositions, ending errors, failure rollups',
    // SQLite's migration 10 (core/store/migration-10.ts) in PostgreSQL's types, with the same backfill.
    up: async (client) => {
      await client.query(FAILURE_MODEL_SQL);
      await runAsync(executorOf(client), settleHistory(Dialect.postgres));
    },
  },
  {
    // SQLite's version 11 creates the `hosts` table PostgreSQL has had since its baseline; here
    // it gains what tells a host's process from a later one with its pid (host-liveness.ts).
    version: 11,
    name: 'host leases: machine and process start time of every host',
    up: async (client) => {
      await client.query('ALTER TABLE hosts ADD COLUMN machine TEXT, ADD COLUMN start_time TEXT');
    },
  },
  {
    // SQLite compares text as BINARY; a database's default collation (en_US, ICU, ...) would sort
    // flows, groups and cursors differently and fold more than ASCII in ILIKE.
    version: 12,
    name: 'bytewise collation of every text column, as SQLite compares',
    up: bytewiseTextColumns,
  },
  {
    version: 13,
    name: "external sessions: the open prompt's attempt and outcome",
    // Bytewise like every text column since version 12.
    up: async (client) => {
      await client.query('ALTER TABLE external_runs ADD COLUMN prompt_state TEXT COLLATE "C"');
    },
  },
  {
    version: 14,
    name: 'error issues: the append-only log of their status changes',
    up: async (client) => {
      await client.query(ISSUE_LOG_SQL);
    },
  },
  {
    version: 15,
    name: 'alert rules and their webhook deliveries',
    up: async (client) => {
      await client.query(ALERT_TABLES_POSTGRES);
    },
  },
  {
    version: 16,
    name: 'tokens and cost: attempt usage, run totals, flow totals per day',
    // SQLite's migration 16 (core/store/migration-16.ts) in PostgreSQL's types; nothing to backfill.
    up: async (client) => {
      await client.query(usageRollupsSql(Dialect.postgres));
    },
  },
  {
    version: 17,
    name: 'usage-limit waits: the reset a task and its run wait for',
    up: async (client) => {
      for (const sql of USAGE_LIMIT_WAIT_SQL) await client.query(sql);
    },
  },
  {
    version: 18,
    name: "issue facts kept at commit: each issue's runs, flows and failures",
    up: async (client) => {
      await client.query(ERROR_GROUP_FACTS_SQL);
    },
  },
  {
    version: 19,
    name: 'runs at scale: run counts per hour, flow and status; flow list sorted by name',
    // SQLite's migration 19 (core/store/migration-19.ts) in PostgreSQL's types, with the same backfill.
    up: async (client) => {
      for (const sql of runsAtScaleSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 20,
    name: "group counts per hour and day, over every flow and per flow: the sparklines' reads",
    // SQLite's migration 20 (core/store/migration-20.ts): the same tables and backfill, plpgsql triggers.
    up: async (client) => {
      for (const sql of groupCountsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 21,
    name: 'what failure costs and how each flow fares: cost by outcome, runs ended per flow, status and duration',
    // SQLite's migration 21 (core/store/outcomes/migration-21.ts): the same statements and key backfill, plpgsql triggers.
    up: async (client) => {
      const sql = outcomesMigrationSql(Dialect.postgres);
      for (const statement of sql.before) await client.query(statement);
      await runAsync(executorOf(client), outcomesKeyBackfill());
      for (const statement of sql.after) await client.query(statement);
    },
  },
  {
    version: 22,
    name: "issue failures per hour and day: each issue's failures in a period from rollups",
    // SQLite's migration 22 (core/store/migration-22.ts): the same tables and backfill, one plpgsql trigger function.
    up: async (client) => {
      for (const sql of issueFailureRollupsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 23,
    name: "labels: the steps a run's flow takes, a task's prompt as written",
    // SQLite's migration 23 (core/store/migration-23.ts): the same columns.
    up: async (client) => {
      for (const sql of labelFactsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 24,
    name: 'agent trees: the run that started each subagent run',
    // SQLite's migration 24 (core/store/migration-24.ts): the same table.
    up: async (client) => {
      for (const sql of agentSpawnsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 25,
    name: 'waiting on a person: the permission prompt a run waits on, the time it waited',
    // SQLite's migration 25 (core/store/migration-25.ts): the same columns and partial index.
    up: async (client) => {
      for (const sql of approvalWaitsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 26,
    name: 'alert channels: a rule delivers to a webhook, the desktop, or both',
    // SQLite's migration 26 (core/store/migration-26.ts): the same columns and check, altered in place.
    up: async (client) => {
      for (const sql of alertChannelsSql(Dialect.postgres)) await client.query(sql);
    },
  },
  {
    version: 27,
    name: "telemetry expected from a preset attempt: the origin its CLI's exporter was pointed at the receiver with",
    // SQLite's migration 27 (core/store/migration-27.ts): the same column.
    up: async (client) => {
      for (const sql of attemptTelemetrySql(Dialect.postgres)) await client.query(sql);
    },
  },
];

/**
 * Every text column of the schema gets `COLLATE "C"`: bytes of UTF-8, i.e. code point order,
 * exactly SQLite's BINARY. The column collation (not a COLLATE in each query) keeps every index
 * usable by the queries' ORDER BY, keyset cursors and ILIKE, whatever the database's locale.
 * Rewrites each table once (one ALTER TABLE naming all its text columns; dependent indexes and
 * foreign keys are rebuilt with it).
 */
async function bytewiseTextColumns(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns AS c
       JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'text'
        AND c.table_name <> 'schema_version'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const row of rows) byTable.set(row.table_name, [...(byTable.get(row.table_name) ?? []), row.column_name]);
  // The run_counts update trigger's WHEN names runs.flow and runs.status, which PostgreSQL
  // refuses to retype under it: dropped and created again as the baseline wrote it.
  await client.query('DROP TRIGGER run_counts_update ON runs');
  for (const [table, columns] of byTable) {
    const changes = columns.map((column) => `ALTER COLUMN ${quoteIdentifier(column)} TYPE TEXT COLLATE "C"`).join(', ');
    await client.query(`ALTER TABLE ${quoteIdentifier(table)} ${changes}`);
  }
  await client.query(`CREATE TRIGGER run_counts_update AFTER UPDATE OF flow, status ON runs FOR EACH ROW
    WHEN (OLD.flow IS DISTINCT FROM NEW.flow OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION hivewatch_run_counts()`);
}

/** Names come from the catalog, quoted anyway. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

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

/** The same refusal SQLite gives (`migrate` in core/store/migrations.ts). */
export function assertUnderstood(version: number): void {
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new StoreError(
      'corrupt',
      `database schema version ${version} is newer than this Hivewatch understands (${POSTGRES_SCHEMA_VERSION}); upgrade Hivewatch`,
      { code: 'SYSTEM_SCHEMA_TOO_NEW' },
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
        await migration.up(client);
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, now()]);
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
