import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, startPostgresCluster, toolEnv, type PostgresCluster } from './postgres-cluster.js';
import { skipTitle } from './skip.js';

const { binaries, reason } = findPostgres();
// Never skipped silently: the reason is printed with the suite's output.
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

describe('toolEnv', () => {
  it('runs the server tools without libfaketime, keeping every other variable and preloaded library', () => {
    const env = {
      PATH: '/usr/bin',
      LD_PRELOAD: '/usr/lib/libother.so /usr/$LIB/faketime/libfaketime.so.1',
      FAKETIME: '@2026-11-30 23:59:30',
      FAKETIME_SHARED: '/faketime_sem_7 /faketime_shm_7',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
    expect(toolEnv(env)).toEqual({ PATH: '/usr/bin', LD_PRELOAD: '/usr/lib/libother.so' });
    expect(toolEnv({ PATH: '/usr/bin', LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1' })).toEqual({ PATH: '/usr/bin' });
  });
});

describe('findPostgres', () => {
  it('names what is missing when no server is installed', () => {
    const found = findPostgres('/nonexistent-postgres-root');
    expect(found.binaries).toBeNull();
    expect(found.reason).toBe('no PostgreSQL server in /nonexistent-postgres-root/*/bin (install it: apt-get install -y postgresql)');
  });
});

describe.skipIf(!binaries)(skipTitle('a throwaway PostgreSQL cluster', reason), () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
  });
  afterAll(() => cluster?.stop());

  it('accepts connections on its loopback port and keeps what was committed', async () => {
    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    try {
      await client.query('CREATE TABLE probe (id bigint PRIMARY KEY, note text NOT NULL)');
      await client.query('INSERT INTO probe VALUES ($1, $2), ($3, $4)', [1, 'one', 2, 'two']);
      const { rows } = await client.query<{ id: string; note: string }>('SELECT id, note FROM probe ORDER BY id');
      expect(rows).toEqual([
        { id: '1', note: 'one' },
        { id: '2', note: 'two' },
      ]);
    } finally {
      await client.end();
    }
  });

  it('delivers a NOTIFY sent by one connection to another that LISTENs, after commit only', async () => {
    const listener = new pg.Client({ connectionString: cluster.url() });
    const sender = new pg.Client({ connectionString: cluster.url() });
    await Promise.all([listener.connect(), sender.connect()]);
    try {
      const received: string[] = [];
      const arrived = new Promise<void>((resolve) => {
        listener.on('notification', (message) => {
          received.push(message.payload ?? '');
          resolve();
        });
      });
      await listener.query('LISTEN hivewatch_probe');
      await sender.query('BEGIN');
      await sender.query("SELECT pg_notify('hivewatch_probe', 'rolled back')");
      await sender.query('ROLLBACK');
      await sender.query("SELECT pg_notify('hivewatch_probe', 'committed')");
      await arrived;
      expect(received).toEqual(['committed']);
    } finally {
      await Promise.all([listener.end(), sender.end()]);
    }
  });

  it('leaves no directory behind once stopped', async () => {
    const second = await startPostgresCluster(binaries!);
    const client = new pg.Client({ connectionString: second.url() });
    await client.connect();
    await client.end();
    second.stop();
    expect(existsSync(second.dataDir)).toBe(false);
  });

  it('keeps a kept data directory and what was committed in it across stop and start', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'hivewatch-kept-'));
    chmodSync(parent, 0o755); // the cluster's owner (postgres, when we are root) must reach its directory
    const dataDir = join(parent, 'data');
    try {
      const first = await startPostgresCluster(binaries!, { keepDataDir: dataDir });
      const writer = new pg.Client({ connectionString: first.url() });
      await writer.connect();
      await writer.query("CREATE TABLE kept (note text NOT NULL); INSERT INTO kept VALUES ('still here')");
      await writer.end();
      first.stop();
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);

      const again = await startPostgresCluster(binaries!, { keepDataDir: dataDir });
      const reader = new pg.Client({ connectionString: again.url() });
      await reader.connect();
      try {
        const { rows } = await reader.query<{ note: string }>('SELECT note FROM kept');
        expect(rows).toEqual([{ note: 'still here' }]);
      } finally {
        await reader.end();
        again.stop();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
