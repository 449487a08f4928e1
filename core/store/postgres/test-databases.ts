import pg from 'pg';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import type { RunOwner } from '../hosts.js';
import { createPostgresPool, postgresConfig } from './connection.js';
import { migratePostgres } from './migrations.js';

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

  async start(): Promise<void> {
    this.cluster = await startPostgresCluster(postgresBinaries!);
    this.admin = new pg.Client({ connectionString: this.cluster.url() });
    await this.admin.connect();
  }

  /** A new database at the current schema version; its URL. */
  async fresh(prefix: string): Promise<string> {
    const name = `${prefix}_${++this.count}`;
    await this.admin!.query(`CREATE DATABASE ${name}`);
    const url = this.cluster!.url(name);
    const pool = this.pool(url);
    await migratePostgres(pool, () => 0);
    return url;
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
    this.cluster?.stop();
  }
}

export function testOwner(name: string, hostname = `host-${name}`): RunOwner {
  return { pid: 1000 + name.length, hostname, instance: `instance-${name}` };
}

/** Runs `work` in a transaction on a client of `pool` (COMMIT, or ROLLBACK and rethrow). */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
