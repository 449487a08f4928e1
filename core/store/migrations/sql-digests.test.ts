import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { skipTitle } from '../../testing/skip.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { MIGRATIONS } from './index.js';

/**
 * A landed migration is never edited: this pins the text of every statement each version runs,
 * on both engines, so a change to a migration's SQL (or to a shared fragment it interpolates,
 * such as STATUS_RANK_SQL) fails here. Each version runs once on a fresh database through a
 * recording wrapper; its statement texts, in order, are hashed (bound parameters left out: a
 * backfill's values depend on data, its statements do not).
 *
 * A new version's digest is added with `HIVEWATCH_ADD_SQL_DIGESTS=1`, which writes only the
 * versions the file lacks and still fails on a landed version whose SQL changed.
 */

const DIGESTS_FILE = join(import.meta.dirname, 'sql-digests.json');
const ADD_MISSING = process.env.HIVEWATCH_ADD_SQL_DIGESTS === '1';

interface VersionDigest {
  statements: number;
  sha256: string;
}
type EngineDigests = Record<string, VersionDigest>;
interface DigestFile {
  sqlite: EngineDigests;
  postgres: EngineDigests;
}

const sqliteSteps = MIGRATIONS.flatMap(({ version, sqlite }) => (sqlite ? [{ version, run: sqlite }] : []));
const postgresSteps = MIGRATIONS.flatMap(({ version, postgres }) => (postgres ? [{ version, run: postgres }] : []));

function digestOf(statements: readonly string[]): VersionDigest {
  const hash = createHash('sha256');
  for (const statement of statements) hash.update(`${statement}\0`);
  return { statements: statements.length, sha256: hash.digest('hex') };
}

/** The database with every statement text it is given recorded into `sink` (the array in use). */
function recordingSqlite(db: Database.Database, sink: () => string[]): Database.Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'exec') return (sql: string) => (sink().push(`exec:${sql}`), target.exec(sql));
      if (property === 'prepare') return (sql: string) => (sink().push(`prepare:${sql}`), target.prepare(sql));
      if (property === 'pragma') return (sql: string, options?: Database.PragmaOptions) => (sink().push(`pragma:${sql}`), target.pragma(sql, options));
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function recordingClient(client: pg.PoolClient, sink: string[]): pg.PoolClient {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') {
        return (query: string | pg.QueryConfig, values?: unknown[]) => {
          sink.push(typeof query === 'string' ? query : query.text);
          return target.query(query as string, values);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function sqliteDigests(path: string): EngineDigests {
  const db = new Database(path);
  try {
    const digests: EngineDigests = {};
    let current: string[] = [];
    const recorded = recordingSqlite(db, () => current);
    for (const step of sqliteSteps) {
      current = [];
      db.transaction(() => step.run(recorded)).immediate();
      digests[String(step.version)] = digestOf(current);
    }
    return digests;
  } finally {
    db.close();
  }
}

async function postgresDigests(url: string): Promise<EngineDigests> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    const digests: EngineDigests = {};
    await client.query('BEGIN');
    for (const step of postgresSteps) {
      const statements: string[] = [];
      await step.run(recordingClient(client, statements));
      digests[String(step.version)] = digestOf(statements);
    }
    await client.query('COMMIT');
    return digests;
  } finally {
    client.release();
    await pool.end();
  }
}

function readDigests(): DigestFile {
  if (!existsSync(DIGESTS_FILE)) return { sqlite: {}, postgres: {} };
  return JSON.parse(readFileSync(DIGESTS_FILE, 'utf8')) as DigestFile;
}

/** Adds the versions `pinned` lacks (in add mode), then compares: a landed version's digest never changes. */
function compare(engine: keyof DigestFile, measured: EngineDigests): void {
  const file = readDigests();
  const missing = Object.keys(measured).filter((version) => !(version in file[engine]));
  if (ADD_MISSING && missing.length > 0) {
    for (const version of missing) file[engine][version] = measured[version]!;
    const sorted = Object.fromEntries(Object.entries(file[engine]).sort(([a], [b]) => Number(a) - Number(b)));
    writeFileSync(DIGESTS_FILE, `${JSON.stringify({ ...file, [engine]: sorted }, null, 2)}\n`);
  }
  expect(measured).toEqual(readDigests()[engine]);
}

const temp = tempDirs();

describe('migration SQL digests', () => {
  it('every SQLite version runs the statements pinned in sql-digests.json', () => {
    compare('sqlite', sqliteDigests(join(temp('hw-sql-digests-'), 'fresh.db')));
  });
});

const { binaries, reason } = findPostgres();

describe.skipIf(!binaries)(skipTitle('migration SQL digests on PostgreSQL', reason), () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
  });
  afterAll(() => cluster?.stop());

  it('every PostgreSQL version runs the statements pinned in sql-digests.json', async () => {
    compare('postgres', await postgresDigests(cluster.url()));
  });
});
