import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, openStore } from '../../store/index.js';
import { randomJournals } from '../../store/testing/journal-builder.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { skipTitle } from '../../testing/skip.js';

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`concurrent migrate suite skipped: ${reason}`);

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
const RUNS = 12;

interface Exit {
  code: number;
  out: string;
  err: string;
}

function migrate(from: string, to: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'migrate', '--from', from, '--to', to, '--batch', '100000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/**
 * Two `hivewatch migrate` into one database at once. Both plan the same runs;
 * the test holds the journal's head row until both are inside their first write (so both did
 * plan the whole history), then lets them go: one commits, the other's batch meets the first's
 * events. The loser must say what happened and that running the command again finishes the job
 * (docs: "a failed or repeated migrate is run again as is"), not die with a stack trace.
 */
describe.skipIf(!binaries)(skipTitle('two hivewatch migrate at once (needs PostgreSQL)', reason), () => {
  let cluster: PostgresCluster;
  let dir: string;
  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    dir = mkdtempSync(join(tmpdir(), 'hw-migrate-race-'));
  }, 60_000);
  afterAll(() => {
    cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the loser prints the "run again" line and exits 1; running it again completes the copy exactly', async () => {
    const history = join(dir, 'laptop.db');
    const sqlite = openSqliteStore({ path: history });
    for (const events of randomJournals(25, RUNS)) sqlite.appendEvents(events);
    sqlite.close();
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE race');
      const url = cluster.url('race');
      await (await openStore({ path: url })).close();

      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE journal_head IN EXCLUSIVE MODE');
      const both = Promise.all([migrate(history, url), migrate(history, url)]);
      await expect
        .poll(
          async () => {
            const { rows } = await admin.query<{ waiting: number }>(
              "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = 'race' AND application_name = 'hivewatch' AND wait_event_type = 'Lock'",
            );
            return rows[0]!.waiting === 2;
          },
          { message: 'both migrates blocked inside their first write', timeout: 60_000 },
        )
        .toBeTruthy();
      await holder.query('COMMIT');
      await holder.end();
      const exits = await both;

      const [winner, loser] = exits[0]!.code === 0 ? exits : [exits[1]!, exits[0]!];
      expect(exits.map((e) => e.code).sort()).toEqual([0, 1]);
      expect(winner!.out).toMatch(new RegExp(`^copied ${RUNS} runs, `));
      expect(loser!.out).toBe('');
      expect(loser!.err).toMatch(
        /^hivewatch migrate: failed: .*already in the journal \(another host wrote it first\)\n {2}Runs copied before the failure are whole; run the same command again to copy the rest\.\n$/,
      );
      expect(loser!.err).not.toMatch(/\n\s+at /);

      const again = await migrate(history, url);
      expect(again).toMatchObject({
        code: 0,
        out: expect.stringMatching(new RegExp(`^copied 0 runs, 0 events, 0 errors .*\\(skipped ${RUNS} runs already there\\)\n$`)),
      });
      const [source, target] = [await openStore({ path: history, readonly: true }), await openStore({ path: url })];
      try {
        expect((await target.eventsAfterCommit(0, 100_000)).map((c) => c.event)).toEqual((await source.eventsAfterCommit(0, 100_000)).map((c) => c.event));
        expect(await target.verifyAggregates()).toEqual({ ok: true, diffs: [] });
      } finally {
        await source.close();
        await target.close();
      }
    } finally {
      await admin.end();
    }
  }, 120_000);
});
