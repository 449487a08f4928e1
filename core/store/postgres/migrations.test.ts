import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { SCHEMA_VERSION } from '../sqlite/migrate.js';
import { createPostgresPool, postgresConfig } from './connection/connection.js';
import { migratePostgres, POSTGRES_SCHEMA_VERSION, postgresSchemaVersion } from './migrate.js';
import { TEXT_INDEXED_COLUMNS } from './migrate.js';
import { skipTitle } from '../../testing/skip.js';

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

describe('PostgreSQL schema versions', () => {
  it('numbers versions as SQLite does: a SQLite migration without its PostgreSQL twin fails here', () => {
    expect(POSTGRES_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
  });
});

describe.skipIf(!binaries)(skipTitle('migratePostgres', reason), () => {
  let cluster: PostgresCluster;
  let admin: pg.Client;
  const pools: pg.Pool[] = [];
  let databases = 0;

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
  });

  async function freshPool(url?: (database: string) => string): Promise<pg.Pool> {
    const database = `migrations_${++databases}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const pool = createPostgresPool(postgresConfig((url ?? cluster.url)(database), {}));
    pools.push(pool);
    return pool;
  }

  async function tables(pool: pg.Pool): Promise<string[]> {
    const { rows } = await pool.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    return rows.map((row) => row.name);
  }

  it("creates the baseline at version 9 with SQLite's tables and applies the later versions, then finds nothing to do", async () => {
    const pool = await freshPool();
    const first = await migratePostgres(pool, () => 1_000);
    expect(first).toEqual({ applied: [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], textIndexes: true, notes: [] });
    const schema = await tables(pool);
    const second = await migratePostgres(pool, () => 2_000);
    expect(second).toEqual({ applied: [], textIndexes: true, notes: [] });
    expect(await tables(pool)).toEqual(schema);
    expect(schema).toEqual(
      [
        'attempt_usage',
        'attempts',
        'checkpoints',
        'error_group_count_day',
        'error_group_count_hour',
        'error_group_failure_day',
        'error_group_failure_hour',
        'error_group_flow_count_day',
        'error_group_flow_count_hour',
        'error_group_flows',
        'error_group_runs',
        'error_group_stats',
        'error_group_trend_day',
        'error_group_trend_hour',
        'error_groups',
        'error_rollups',
        'error_rollups_day',
        'error_rollups_hour',
        'errors',
        'events',
        'external_runs',
        'failure_rollups',
        'failure_rollups_day',
        'failure_rollups_hour',
        'hosts',
        'issue_log',
        'journal_head',
        'otel_payloads',
        'run_commands',
        'run_counts',
        'run_counts_hourly',
        'run_hosts',
        'run_usage',
        'runs',
        'schema_version',
        'settings',
        'steps',
        'tasks',
        'usage_days',
      ]
        .concat(['alert_deliveries', 'alert_rules'], ['cost_rollups_day', 'cost_rollups_hour', 'run_outcomes_day', 'run_outcomes_hour'], ['agent_spawns'])
        .sort(),
    );
    expect(await postgresSchemaVersion(pool)).toBe(29);
    const { rows } = await pool.query('SELECT version, applied_at FROM schema_version ORDER BY version');
    expect(rows).toEqual([
      { version: 9, applied_at: 1_000 },
      { version: 10, applied_at: 1_000 },
      { version: 11, applied_at: 1_000 },
      { version: 12, applied_at: 1_000 },
      { version: 13, applied_at: 1_000 },
      { version: 14, applied_at: 1_000 },
      { version: 15, applied_at: 1_000 },
      { version: 16, applied_at: 1_000 },
      { version: 17, applied_at: 1_000 },
      { version: 18, applied_at: 1_000 },
      { version: 19, applied_at: 1_000 },
      { version: 20, applied_at: 1_000 },
      { version: 21, applied_at: 1_000 },
      { version: 22, applied_at: 1_000 },
      { version: 23, applied_at: 1_000 },
      { version: 24, applied_at: 1_000 },
      { version: 25, applied_at: 1_000 },
      { version: 26, applied_at: 1_000 },
      { version: 27, applied_at: 1_000 },
      { version: 28, applied_at: 1_000 },
      { version: 29, applied_at: 1_000 },
    ]);
    // Version 12: every text column of the store's tables compares bytewise, as SQLite's BINARY
    // (and version 13's new column too).
    const collations = await pool.query<{ collation: string | null; count: number }>(
      `SELECT collation_name AS collation, COUNT(*)::int AS count FROM information_schema.columns
        WHERE table_schema = current_schema() AND data_type = 'text' AND table_name <> 'schema_version' GROUP BY 1`,
    );
    expect(collations.rows).toEqual([{ collation: 'C', count: expect.any(Number) as number }]);
    const trigger = await pool.query("SELECT tgname FROM pg_trigger WHERE tgname = 'run_counts_update'");
    expect(trigger.rowCount).toBe(1);
    const hostColumns = await pool.query<{ name: string }>(
      "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'hosts' ORDER BY ordinal_position",
    );
    expect(hostColumns.rows.map((r) => r.name)).toEqual(['instance', 'pid', 'hostname', 'started_at', 'heartbeat_at', 'lease_ms', 'machine', 'start_time']);
    const head = await pool.query('SELECT id, commit_seq FROM journal_head');
    expect(head.rows).toEqual([{ id: 1, commit_seq: 0 }]);
  });

  it("version 28 keys each error rollup by its six columns and carries the count in the key, and the writer's upsert still lands", async () => {
    const pool = await freshPool();
    await migratePostgres(pool, () => 1_000);
    const { rows } = await pool.query<{ table: string; keys: number; all: number; unique: boolean }>(
      `SELECT c.relname AS table, i.indnkeyatts::int AS keys, i.indnatts::int AS all, i.indisunique AS unique
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        WHERE i.indisprimary AND c.relname IN ('error_rollups', 'error_rollups_hour', 'error_rollups_day') ORDER BY 1`,
    );
    expect(rows).toEqual(['error_rollups', 'error_rollups_day', 'error_rollups_hour'].map((table) => ({ table, keys: 6, all: 7, unique: true })));
    const upsert = `INSERT INTO error_rollups_hour (bucket, category, origin, code, flow, disposition, count) VALUES (1, 'RUNTIME', 'agent:a', 'X', 'f', 'handled', $1)
      ON CONFLICT (bucket, category, origin, code, flow, disposition) DO UPDATE SET count = error_rollups_hour.count + excluded.count`;
    await pool.query(upsert, [2]);
    await pool.query(upsert, [3]);
    expect((await pool.query('SELECT count::int AS count FROM error_rollups_hour')).rows).toEqual([{ count: 5 }]);
  });

  it("version 29 indexes a run's pending occurrences, the rows its writer loads with the run's state", async () => {
    const pool = await freshPool();
    await migratePostgres(pool, () => 1_000);
    const { rows } = await pool.query<{ name: string; definition: string }>(
      "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'errors' AND indexname = 'errors_pending'",
    );
    expect(rows).toEqual([{ name: 'errors_pending', definition: expect.stringMatching(/\(run_id, seq\) WHERE \(disposition = 'pending'::text\)$/) as string }]);
  });

  it('migrates once when several hosts start at the same time', async () => {
    const pool = await freshPool();
    const others = [0, 1, 2].map(() => createPostgresPool(postgresConfig(cluster.url(`migrations_${databases}`), {})));
    pools.push(...others);
    const results = await Promise.all([pool, ...others].map((each) => migratePostgres(each)));
    expect(results.map((result) => result.applied).sort()).toEqual([
      [],
      [],
      [],
      [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29],
    ]);
    const { rows } = await pool.query('SELECT COUNT(*) AS count FROM schema_version');
    expect(rows).toEqual([{ count: 21 }]);
  });

  it('version 14 announces every group stored before it, so no issue of history is new', async () => {
    const pool = await freshPool();
    await migratePostgres(pool, () => 1_000, 13);
    await pool.query(
      `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, unhandled, first_seen, last_seen)
        VALUES ('00aa', 'runtime', 'RUNTIME_TIMEOUT', 'runtime:fake', 't', 'm', 3, 0, 500, 900), ('00bb', 'agent', 'AGENT_REFUSED', 'agent', 't', 'm', 1, 1, 700, 700)`,
    );
    expect((await migratePostgres(pool, () => 2_000)).applied).toEqual([14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    const { rows } = await pool.query('SELECT fingerprint, kind, to_status, actor, host, at, dedupe_key FROM issue_log ORDER BY id');
    expect(rows).toEqual([
      { fingerprint: '00aa', kind: 'new', to_status: 'unresolved', actor: 'system', host: 'migration-14', at: 500, dedupe_key: '00aa:new' },
      { fingerprint: '00bb', kind: 'new', to_status: 'unresolved', actor: 'system', host: 'migration-14', at: 700, dedupe_key: '00bb:new' },
    ]);
  });

  it('refuses a database newer than this build with the words SQLite uses', async () => {
    const pool = await freshPool();
    await migratePostgres(pool);
    const future = POSTGRES_SCHEMA_VERSION + 1;
    await pool.query("INSERT INTO schema_version (version, name, applied_at) VALUES ($1, 'from the future', 0)", [future]);
    await expect(migratePostgres(pool)).rejects.toThrow(
      `database schema version ${future} is newer than this Hivewatch understands (${POSTGRES_SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  });

  it('keeps run_counts with triggers as SQLite does (insert, status change, delete)', async () => {
    const pool = await freshPool();
    await migratePostgres(pool);
    const insert = (id: string, status: string): Promise<unknown> =>
      pool.query(
        `INSERT INTO runs (id, flow, flow_name, status, started_at, updated_at, last_seq, current_step, steps,
           last_checkpoint_step, task_count, attempt_count, error_count, resume_step, epoch)
         VALUES ($1, 'a.prose', 'a', $2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)`,
        [id, status],
      );
    await insert('r1', 'running');
    await insert('r2', 'running');
    await pool.query("UPDATE runs SET status = 'failed' WHERE id = 'r1'");
    await pool.query("UPDATE runs SET updated_at = 5 WHERE id = 'r2'");
    await pool.query("DELETE FROM runs WHERE id = 'r2'");
    const { rows } = await pool.query('SELECT flow, status, count FROM run_counts ORDER BY status');
    expect(rows).toEqual([
      { flow: 'a.prose', status: 'failed', count: 1 },
      { flow: 'a.prose', status: 'running', count: 0 },
    ]);
  });

  it('indexes the searched text columns with trigrams', async () => {
    const pool = await freshPool();
    await migratePostgres(pool);
    const { rows } = await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_trgm' ORDER BY 1");
    expect(rows.map((row) => row.indexname)).toEqual(TEXT_INDEXED_COLUMNS.map(([table, column]) => `${table}_${column}_trgm`).sort());
  });

  it('skips the trigram indexes with a note where pg_trgm cannot be created, and adds them once it can', async () => {
    const database = `migrations_${++databases}`;
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE ROLE limited_${databases} LOGIN`);
    const owner = new pg.Client({ connectionString: cluster.url(database) });
    await owner.connect();
    // May create tables in public, may not create extensions (no CREATE on the database).
    await owner.query(`GRANT CREATE ON SCHEMA public TO limited_${databases}`);
    await owner.end();
    const limitedUrl = cluster.url(database).replace(`${cluster.user}@`, `limited_${databases}@`);
    const limited = createPostgresPool(postgresConfig(limitedUrl, {}));
    pools.push(limited);

    const result = await migratePostgres(limited);
    expect(result.applied).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    expect(result.textIndexes).toBe(false);
    expect(result.notes).toEqual([
      'text search scans without trigram indexes: CREATE EXTENSION pg_trgm failed (permission denied to create extension "pg_trgm")',
    ]);

    await admin.query(`GRANT CREATE ON DATABASE ${database} TO limited_${databases}`);
    // The tables belong to the limited role, so it can index them once the extension is allowed.
    expect(await migratePostgres(limited)).toEqual({ applied: [], textIndexes: true, notes: [] });
  });
});
