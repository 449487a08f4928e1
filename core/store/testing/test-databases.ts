import type Database from 'better-sqlite3';
import pg from 'pg';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import type { RunOwner } from '../hosts/hosts.js';
import { createPostgresPool, postgresConfig } from '../postgres/connection/connection.js';
import { migratePostgres } from '../postgres/migrate.js';

export { inTransaction } from '../postgres/connection/transaction.js';

/**
 * For the PostgreSQL suites of the write path: one throwaway cluster per test file, a fresh
 * migrated database per test, pools that are all ended when the file is done. `binaries` is null
 * (and `reason` says why) when PostgreSQL is not installed: suites skip with that printed reason.
 */

export const { binaries: postgresBinaries, reason: postgresMissing } = findPostgres();
if (!postgresBinaries) console.warn(`PostgreSQL suites skipped: ${postgresMissing}`);

export class TestDatabases {
  private cluster: PostgresCluster | null = null;
  private admin: pg.Client | null = null;
  private readonly pools: pg.Pool[] = [];
  private count = 0;
  private readonly templates = new Map<string, Promise<string>>();

  /** Starts the cluster once: a second call keeps it (a second cluster would be orphaned, left running after stop()). */
  async start(): Promise<void> {
    if (this.cluster !== null) return;
    this.cluster = await startPostgresCluster(postgresBinaries!);
    this.admin = new pg.Client({ connectionString: this.cluster.url() });
    await this.admin.connect();
  }

  /**
   * A new database at the current schema version; its URL. The cluster's locale is C; `icuLocale`
   * (e.g. 'en-US') makes the database's default collation an ICU one, as an operator's en_US
   * server has: the store must sort the same on it (docs/decisions/0024-one-query-code-two-engines.md, "One collation on both engines").
   * Each locale's first database is migrated once as a template and every later one copied from
   * it (CREATE DATABASE … TEMPLATE copies files): migrating every database anew, to the same
   * schema each time, cost the PostgreSQL files about a quarter of their time (docs/testing.md).
   */
  async fresh(prefix: string, icuLocale?: string): Promise<string> {
    const template = await this.template(icuLocale);
    const name = `${prefix}_${++this.count}`;
    await this.admin!.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    return this.cluster!.url(name);
  }

  /** The migrated template for `icuLocale` (C when absent), made once (calls at once share it); no connection is left open on it, which copying needs. */
  private template(icuLocale?: string): Promise<string> {
    const locale = icuLocale === undefined ? '' : icuLocale.replace(/[^A-Za-z-]/g, '');
    let made = this.templates.get(locale);
    if (made === undefined) {
      made = this.makeTemplate(locale);
      this.templates.set(locale, made);
    }
    return made;
  }

  private async makeTemplate(locale: string): Promise<string> {
    const name = `hw_template_${locale === '' ? 'c' : locale.replace(/-/g, '_').toLowerCase()}`;
    const options = locale === '' ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${locale}'`;
    await this.admin!.query(`CREATE DATABASE ${name}${options}`);
    const pool = createPostgresPool(postgresConfig(this.cluster!.url(name), {}), { max: 4 });
    try {
      await migratePostgres(pool, () => 0);
    } finally {
      await pool.end();
    }
    return name;
  }

  /** A pool on `url` (numbers parsed as the store's pools do), ended by `endPools`. */
  pool(url: string, max = 4): pg.Pool {
    const pool = createPostgresPool(postgresConfig(url, {}), { max });
    this.pools.push(pool);
    return pool;
  }

  async endPools(): Promise<void> {
    await Promise.all(this.pools.splice(0).map((pool) => pool.end()));
  }

  async stop(): Promise<void> {
    await this.endPools();
    await this.admin?.end();
    this.admin = null;
    this.cluster?.stop();
    this.cluster = null;
    this.templates.clear();
  }
}

export function testOwner(name: string, hostname = `host-${name}`): RunOwner {
  return { pid: 1000 + name.length, hostname, instance: `instance-${name}` };
}

/**
 * Every table the write path fills, with its key (the ORDER BY of a comparison): the tests compare
 * these table by table with what SQLite's writer and prune leave.
 */
const WRITTEN_TABLES: Readonly<Record<string, string>> = {
  events: 'run_id, seq',
  runs: 'id',
  steps: 'run_id, step',
  tasks: 'run_id, task_id',
  attempts: 'run_id, task_id, attempt',
  errors: 'run_id, seq',
  checkpoints: 'run_id, step',
  error_rollups: 'bucket, category, origin, code, flow, disposition',
  error_rollups_hour: 'bucket, category, origin, code, flow, disposition',
  error_rollups_day: 'bucket, category, origin, code, flow, disposition',
  error_group_trend_hour: 'fingerprint, bucket, flow, disposition',
  error_group_trend_day: 'fingerprint, bucket, flow, disposition',
  error_group_count_hour: 'fingerprint, bucket',
  error_group_count_day: 'fingerprint, bucket',
  error_group_flow_count_hour: 'flow, fingerprint, bucket',
  error_group_flow_count_day: 'flow, fingerprint, bucket',
  error_groups: 'fingerprint',
  failure_rollups: 'bucket, category, origin, code, root_code, flow',
  failure_rollups_hour: 'bucket, category, origin, code, root_code, flow',
  failure_rollups_day: 'bucket, category, origin, code, root_code, flow',
  run_hosts: 'run_id',
  run_counts: 'flow, status',
};

/** Each written table's rows in PostgreSQL and in a SQLite database, in key order. */
export async function bothTables(pool: pg.Pool, db: Database.Database): Promise<{ table: string; postgres: unknown[]; sqlite: unknown[] }[]> {
  const out = [];
  for (const [table, key] of Object.entries(WRITTEN_TABLES)) {
    const { rows } = await pool.query(`SELECT * FROM ${table} ORDER BY ${key}`);
    out.push({ table, postgres: rows, sqlite: db.prepare(`SELECT * FROM ${table} ORDER BY ${key}`).all() });
  }
  return out;
}
