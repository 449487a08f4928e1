import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresBinaries, TestDatabases } from './test-databases.js';
import type { OpenStoreOptions } from '../sqlite/types.js';

/**
 * The engines the store contract's suites run on (conformance.test.ts, failure-model.test.ts):
 * SQLite files in a temp folder and fresh databases of a throwaway PostgreSQL cluster (skipped,
 * with the reason printed, where PostgreSQL is not installed), twice: with the cluster's C locale
 * and with an ICU en-US default collation (an operator's en_US server), which must answer alike. Call `start` / `stop` in the
 * suite's beforeAll / afterAll: `stop` removes every folder and the cluster. With `readPool`, SQLite
 * runs a second time with its reads on two worker threads (sqlite/read-pool.ts): a suite that asks for
 * it passes each engine's `options` to `openStore`.
 */
interface Engine {
  name: string;
  /** What `openStore` is given besides the location (the read pool's workers). */
  options: Pick<OpenStoreOptions, 'readWorkers'>;
  /** A new, empty database's location (file path or URL). */
  fresh(): Promise<string>;
  /** Marks the database as written by a newer Hivewatch (schema version 99). */
  makeNewer(location: string): Promise<void>;
}

export interface TestEngines {
  engines: Engine[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function testEngines(prefix: string, { readPool = false }: { readPool?: boolean } = {}): TestEngines {
  const tempDirs: string[] = [];
  const sqlite: Engine = {
    name: 'SQLite',
    options: {},
    fresh: () => {
      const dir = mkdtempSync(join(tmpdir(), `hw-${prefix}-`));
      tempDirs.push(dir);
      return Promise.resolve(join(dir, 'hivewatch.db'));
    },
    makeNewer: (location) => {
      const db = new Database(location);
      db.pragma('user_version = 99');
      db.close();
      return Promise.resolve();
    },
  };
  const sqlites = readPool ? [sqlite, { ...sqlite, name: 'SQLite with 2 read workers', options: { readWorkers: 2 } }] : [sqlite];
  const databases = new TestDatabases();
  const makeNewerPostgres = async (location: string): Promise<void> => {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    await client.query("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'from the future', 0)");
    await client.end();
  };
  const databaseName = prefix.replace(/[^a-z0-9_]/g, '_');
  const postgres: Engine = { name: 'PostgreSQL', options: {}, fresh: () => databases.fresh(databaseName), makeNewer: makeNewerPostgres };
  const postgresEnUs: Engine = {
    name: 'PostgreSQL en-US',
    options: {},
    fresh: () => databases.fresh(`${databaseName}_en_us`, 'en-US'),
    makeNewer: makeNewerPostgres,
  };
  return {
    engines: postgresBinaries ? [...sqlites, postgres, postgresEnUs] : sqlites,
    start: async () => {
      if (postgresBinaries) await databases.start();
    },
    stop: async () => {
      if (postgresBinaries) await databases.stop();
      for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
