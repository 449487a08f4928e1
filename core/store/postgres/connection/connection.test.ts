import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../../testing/postgres-cluster.js';
import { connectionError, createPostgresPool, isPostgresUrl, postgresConfig, redactUrl } from './connection.js';
import { skipTitle } from '../../../testing/skip.js';

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

describe('postgresConfig', () => {
  it('reads user, password, host, port and database from a URL, either scheme', () => {
    for (const scheme of ['postgres', 'postgresql']) {
      expect(postgresConfig(`${scheme}://ops:s3cret@db.example:6543/hive`, {})).toEqual({
        host: 'db.example',
        port: 6543,
        user: 'ops',
        password: 's3cret',
        database: 'hive',
        sslmode: 'prefer',
        ssl: false,
      });
    }
  });

  it('decodes a percent-encoded password and user name', () => {
    const config = postgresConfig('postgres://op%40s:p%40ss%3Aw%2Fo%25rd%23@localhost/hive', {});
    expect(config.user).toBe('op@s');
    expect(config.password).toBe('p@ss:w/o%rd#');
  });

  it('takes a socket directory from ?host= and from a percent-encoded host', () => {
    expect(postgresConfig('postgres://ops@/hive?host=/run/postgresql', {})).toMatchObject({ host: '/run/postgresql', database: 'hive' });
    expect(postgresConfig('postgres://ops@%2Frun%2Fpostgresql/hive', {}).host).toBe('/run/postgresql');
  });

  it('fills what the URL leaves out from the PG* variables, and the URL wins over them', () => {
    const env = { PGHOST: 'envhost', PGPORT: '7000', PGUSER: 'envuser', PGPASSWORD: 'envpass', PGDATABASE: 'envdb', PGSSLMODE: 'require' };
    expect(postgresConfig('postgres://', env)).toEqual({
      host: 'envhost',
      port: 7000,
      user: 'envuser',
      password: 'envpass',
      database: 'envdb',
      sslmode: 'require',
      ssl: { rejectUnauthorized: false },
    });
    expect(postgresConfig('postgres://u:p@h:1/d?sslmode=disable', env)).toEqual({
      host: 'h',
      port: 1,
      user: 'u',
      password: 'p',
      database: 'd',
      sslmode: 'disable',
      ssl: false,
    });
  });

  it('leaves to the driver what neither gives (it defaults host, port, user, and reads ~/.pgpass)', () => {
    expect(postgresConfig('postgres://', {})).toEqual({ sslmode: 'prefer', ssl: false });
  });

  it('maps sslmode as libpq means it', () => {
    const ssl = (mode: string): unknown => postgresConfig(`postgres://h/d?sslmode=${mode}`, {}).ssl;
    expect(ssl('disable')).toBe(false);
    expect(ssl('prefer')).toBe(false);
    expect(ssl('require')).toEqual({ rejectUnauthorized: false });
    const verifyCa = ssl('verify-ca') as { rejectUnauthorized: boolean; checkServerIdentity: () => undefined };
    expect(verifyCa.rejectUnauthorized).toBe(true);
    expect(verifyCa.checkServerIdentity()).toBeUndefined();
    expect(ssl('verify-full')).toEqual({ rejectUnauthorized: true });
  });

  it('says what is wrong with a bad URL without echoing its password', () => {
    const cases: [string, string][] = [
      ['mysql://u:hunter2@h/d', 'invalid PostgreSQL URL mysql://u:***@h/d: it must start with postgres:// or postgresql://'],
      [
        'postgres://u:hunter2@h/d?sslmode=sometimes',
        'invalid PostgreSQL URL postgres://u:***@h/d?sslmode=sometimes: sslmode "sometimes" is not one of disable, prefer, require, verify-ca, verify-full',
      ],
      ['postgres://u:hunter2@h:99999/d', 'invalid PostgreSQL URL postgres://u:***@h:99999/d: port "99999" is not a number from 1 to 65535'],
      ['postgres://u:hunter2@h:port/d', 'invalid PostgreSQL URL postgres://u:***@h:port/d: port "port" is not a number from 1 to 65535'],
      [
        'postgres://u:hunter2@h/d?pasword=x',
        'invalid PostgreSQL URL postgres://u:***@h/d?pasword=x: unknown parameter "pasword" (known: sslmode, host, port, user, password, dbname)',
      ],
      [
        'postgres://u:hunter2@bad host/d',
        'invalid PostgreSQL URL postgres://u:***@bad host/d: it is not a URL (percent-encode special characters in the user name and password)',
      ],
      ['postgres://u:hunter2%zz@h/d', 'invalid PostgreSQL URL postgres://u:***@h/d: the password is not valid percent-encoding'],
    ];
    for (const [url, message] of cases) {
      expect(() => postgresConfig(url, {}), url).toThrow(message);
    }
  });

  it('rejects a PGSSLMODE it does not know, naming the variable value', () => {
    expect(() => postgresConfig('postgres://h/d', { PGSSLMODE: 'allow-ish' })).toThrow('sslmode "allow-ish" is not one of');
  });
});

describe('redactUrl', () => {
  it('replaces the password, whatever characters it has', () => {
    expect(redactUrl('postgres://ops:s3cret@db:5432/hive')).toBe('postgres://ops:***@db:5432/hive');
    expect(redactUrl('postgres://ops:p%40ss%3Aw%2Fo%25rd@db/hive')).toBe('postgres://ops:***@db/hive');
    // A raw '@' or ':' in the password (not a valid URL) is still hidden entirely.
    expect(redactUrl('postgresql://ops:p@ss:w@rd@db/hive?sslmode=require')).toBe('postgresql://ops:***@db/hive?sslmode=require');
    expect(redactUrl('postgres://ops@db/hive?sslmode=require&password=s3cret')).toBe('postgres://ops@db/hive?sslmode=require&password=***');
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('postgres://ops@db/hive')).toBe('postgres://ops@db/hive');
    expect(redactUrl('postgres://db:5432/hive')).toBe('postgres://db:5432/hive');
    expect(redactUrl('postgres:///hive?host=/run/postgresql')).toBe('postgres:///hive?host=/run/postgresql');
  });
});

describe('isPostgresUrl', () => {
  it('recognises both schemes and nothing else', () => {
    expect(['postgres://h/d', 'POSTGRESQL://h/d', 'hivewatch.db', '/tmp/postgres://x', 'postgres:/h'].map(isPostgresUrl)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe.skipIf(!binaries)(skipTitle('pools on a real cluster', reason), () => {
  let cluster: PostgresCluster;
  let admin: pg.Client;
  const password = 'pa$$ w@rd:/%?#';

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    // Password authentication over TCP for this role only; the rest of the cluster trusts loopback.
    await admin.query(`CREATE ROLE secretive LOGIN PASSWORD '${password.replace(/'/g, "''")}'`);
    await admin.query(`CREATE DATABASE secretive OWNER secretive`);
    // The server reads pg_hba.conf top-down: this rule comes first. We own the file, or are root.
    const hba = join(cluster.dataDir, 'pg_hba.conf');
    writeFileSync(hba, `host all secretive 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
    await admin.query('SELECT pg_reload_conf()');
  });
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
  });

  const urlFor = (user: string, secret: string | null, database: string): string =>
    `postgres://${encodeURIComponent(user)}${secret === null ? '' : `:${encodeURIComponent(secret)}`}@127.0.0.1:${cluster.port}/${database}`;

  it('connects with a percent-encoded password full of special characters', async () => {
    const pool = createPostgresPool(postgresConfig(urlFor('secretive', password, 'secretive'), {}));
    try {
      const { rows } = await pool.query('SELECT current_user AS who');
      expect(rows).toEqual([{ who: 'secretive' }]);
    } finally {
      await pool.end();
    }
  });

  it('an error from a failed connect (wrong password) does not contain the password', async () => {
    const wrong = 'not-the-$ecret-42';
    const url = urlFor('secretive', wrong, 'secretive');
    const pool = createPostgresPool(postgresConfig(url, {}));
    let caught: unknown;
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      caught = connectionError(url, error, wrong);
    } finally {
      await pool.end();
    }
    expect(caught).toBeInstanceOf(Error);
    const error = caught as Error & { cause?: Error };
    expect(error.message).toBe(
      `cannot connect to PostgreSQL at postgres://secretive:***@127.0.0.1:${cluster.port}/secretive: password authentication failed for user "secretive"`,
    );
    for (const text of [error.message, String(error.stack), String(error.cause?.stack), JSON.stringify(error.cause)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(encodeURIComponent(wrong));
    }
  });

  it('parses BIGINT and NUMERIC to numbers in its own pools only, and names the application', async () => {
    const pool = createPostgresPool(postgresConfig(cluster.url(), {}));
    try {
      const { rows } = await pool.query(
        "SELECT 9007199254740991::bigint AS big, SUM(x)::numeric AS total, current_setting('application_name') AS app FROM (VALUES (1::bigint), (2)) AS t (x)",
      );
      expect(rows).toEqual([{ big: 9_007_199_254_740_991, total: 3, app: 'hivewatch' }]);
    } finally {
      await pool.end();
    }
    const { rows } = await admin.query('SELECT 5::bigint AS big');
    expect(rows).toEqual([{ big: '5' }]);
  });
});
