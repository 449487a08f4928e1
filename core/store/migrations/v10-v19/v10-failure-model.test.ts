import type Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from '../../contract.js';
import { openDatabase } from '../../sqlite/database.js';
import { migrate, SCHEMA_VERSION } from '../../sqlite/migrate.js';
import { openStore } from '../../open.js';
import { migratePostgres } from '../../postgres/migrate.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../testing/test-databases.js';
import { openSqliteStore } from '../../sqlite/store.js';
import { caughtAndCompleted, failFast, rethrow, retryLimit, thrownInCatch, type Scenario } from '../../testing/failure-journals.js';
import { JournalBuilder, randomJournals } from '../../testing/journal-builder.js';

/**
 * Migration 10 on a history written at version 9, by both engines: the version-9 rows are what
 * the store of that version left (its columns only; rollups and groups split by the old
 * `handled` flag, retried or caught), made from old-shape journals of a rethrow, a retry limit, a
 * fail-fast, a `throw "message"` in a catch, a completed run with a caught error, a cancelled, an
 * interrupted and a live run. After the migration every run replays exactly, the aggregates
 * verify, and the old runs read as the failure model says.
 */

const T0 = Date.UTC(2026, 0, 5);
const V9_TABLES = ['events', 'runs', 'steps', 'tasks', 'attempts', 'errors', 'checkpoints', 'error_groups', 'run_hosts', 'journal_head'];

let dir: string;
let v9Path: string;
const scenarios: Record<string, Scenario> = {};
const databases = new TestDatabases();

/** Columns of `table` in the database at `schema` (main or an attached one). */
function columns(db: Database.Database, schema: string, table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
}

/** A version-9 SQLite file with the rows the version-9 store wrote for the same journals. */
function writeV9(): void {
  const sourcePath = join(dir, 'source.db');
  const source = openSqliteStore({ path: sourcePath, recover: false, now: () => T0 + 86_400_000 });
  scenarios.rethrow = rethrow('rethrow', 'legacy', { start: T0 });
  scenarios.limit = retryLimit('limit', 'legacy', { start: T0 + 60_000 });
  scenarios.fast = failFast('fast', 'legacy', { start: T0 + 120_000 });
  scenarios.thrown = thrownInCatch('thrown', 'legacy', { start: T0 + 180_000 });
  scenarios.fine = caughtAndCompleted('fine', { start: T0 + 240_000 });
  const live = caughtAndCompleted('live', { start: T0 + 300_000 });
  scenarios.live = { ...live, events: live.events.slice(0, -1) };
  for (const s of Object.values(scenarios)) source.appendEvents(s.events);
  source.appendEvents(
    new JournalBuilder('cancelled', { start: T0 + 360_000 }).start().cancelDuringStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT' }] }]).events,
  );
  source.appendEvents(new JournalBuilder('left', { start: T0 + 420_000 }).start().dieDuringStep([{ attempts: ['ok'] }]).events);
  for (const journal of randomJournals(10, 30, { start: T0 })) source.appendEvents(journal);
  source.recoverInterrupted({ runId: 'left', force: true });
  source.close();

  const v9 = openDatabase({ path: v9Path });
  expect(migrate(v9, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  v9.prepare('ATTACH DATABASE ? AS src').run(sourcePath);
  v9.exec('DELETE FROM main.journal_head');
  for (const table of V9_TABLES) {
    const cols = columns(v9, 'main', table).join(', ');
    v9.exec(`INSERT INTO main.${table} (${cols}) SELECT ${cols} FROM src.${table}`);
  }
  // What version 9 counted: handled = retried or caught, in the rollups, the trends and the groups.
  const floor = (size: number): string => `ts - (((ts % ${size}) + ${size}) % ${size})`;
  for (const [table, size] of [
    ['error_rollups', 60_000],
    ['error_rollups_hour', 3_600_000],
    ['error_rollups_day', 86_400_000],
  ] as const) {
    v9.exec(`INSERT INTO main.${table} (bucket, category, origin, code, flow, handled, count)
      SELECT ${floor(size)}, category, origin, code, flow, (caught OR retrying), COUNT(*) FROM main.errors GROUP BY 1, 2, 3, 4, 5, 6`);
  }
  for (const [table, size] of [
    ['error_group_trend_hour', 3_600_000],
    ['error_group_trend_day', 86_400_000],
  ] as const) {
    v9.exec(`INSERT INTO main.${table} (bucket, fingerprint, flow, handled, count)
      SELECT ${floor(size)}, fingerprint, flow, (caught OR retrying), COUNT(*) FROM main.errors GROUP BY 1, 2, 3, 4`);
  }
  v9.exec(
    'UPDATE main.error_groups SET unhandled = (SELECT COUNT(*) FROM main.errors AS e WHERE e.fingerprint = error_groups.fingerprint AND NOT (e.caught OR e.retrying))',
  );
  v9.exec('DETACH DATABASE src');
  // The defect version 9 had: the rethrown crash that failed its run counted as handled.
  const rethrown = v9.prepare("SELECT caught FROM errors WHERE run_id = 'rethrow'").get() as { caught: number };
  expect(rethrown.caught).toBe(1);
  v9.close();
}

/** The version-9 rows copied into a PostgreSQL database migrated to version 9 only. */
async function copyToPostgres(pool: pg.Pool): Promise<void> {
  await migratePostgres(pool, () => 0, 9);
  const v9 = openDatabase({ path: v9Path, readonly: true });
  try {
    await pool.query('DELETE FROM journal_head');
    const tables = [...V9_TABLES, 'error_rollups', 'error_rollups_hour', 'error_rollups_day', 'error_group_trend_hour', 'error_group_trend_day'];
    for (const table of tables) {
      for (const row of v9.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]) {
        const names = Object.keys(row);
        await pool.query(
          `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          names.map((n) => row[n]),
        );
      }
    }
  } finally {
    v9.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-migration-10-'));
  v9Path = join(dir, 'v9.db');
  writeV9();
  if (postgresBinaries) await databases.start();
}, 120_000);

afterAll(async () => {
  if (postgresBinaries) await databases.stop();
  rmSync(dir, { recursive: true, force: true });
});

if (!postgresBinaries) console.warn(`PostgreSQL migration checks skipped: ${postgresMissing}`);

type Opened = { name: string; open: () => Promise<HivewatchStore> };
const ENGINES: Opened[] = [
  {
    name: 'SQLite',
    open: () => {
      // A copy: the version-9 file stays for the PostgreSQL copy.
      const path = join(dir, 'migrated.db');
      copyFileSync(v9Path, path);
      return openStore({ path, recover: false });
    },
  },
  ...(postgresBinaries
    ? [
        {
          name: 'PostgreSQL',
          open: async () => {
            const url = await databases.fresh('v9');
            const pool = databases.pool(url);
            await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
            await copyToPostgres(pool);
            return openStore({ path: url, recover: false });
          },
        },
      ]
    : []),
];

describe.each(ENGINES)('migration 10 from a version-9 history on $name', ({ open }) => {
  let store: HivewatchStore;
  beforeAll(async () => {
    store = await open();
  }, 120_000);
  afterAll(async () => store?.close());

  const disposition = async (name: string): Promise<Record<string, string>> => {
    const s = scenarios[name]!;
    const rows = (await store.listErrors({ runId: s.builder.runId, limit: 100 })).errors;
    return Object.fromEntries(
      Object.entries(s.seqs).map(([key, seq]) => {
        const row = rows.find((r) => r.seq === seq);
        return [key, `${row?.disposition}${row?.ending ? ' ending' : ''}`];
      }),
    );
  };

  it('settles the old runs as the failure model says', async () => {
    expect((await store.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    expect(await disposition('rethrow')).toEqual({ crash: 'unhandled ending' });
    expect(await disposition('limit')).toEqual({ timeout1: 'handled', timeout2: 'handled', timeout3: 'unhandled', policy: 'unhandled ending' });
    expect(await disposition('fast')).toEqual({ timeout1: 'handled', timeout2: 'handled', crash: 'unhandled ending', stopped: 'handled' });
    expect(await disposition('thrown')).toEqual({ crash: 'unhandled', thrown: 'unhandled ending' });
    expect(await disposition('fine')).toEqual({ crash: 'handled' });
    expect(await disposition('live')).toEqual({ crash: 'pending' });
    const ending = async (id: string): Promise<unknown[]> => {
      const r = (await store.getRunRow(id))!;
      return [r.endingCode, r.endingRootCode, r.endingChain?.map((l) => l.how ?? (l.rethrown ? 'rethrown' : null))];
    };
    expect(await ending('rethrow')).toEqual(['RUNTIME_CRASHED', 'RUNTIME_CRASHED', ['rethrown']]);
    expect(await ending('limit')).toEqual(['POLICY_RETRY_LIMIT_EXCEEDED', 'RUNTIME_TIMEOUT', ['retry-limit', null]]);
    expect(await ending('fast')).toEqual(['RUNTIME_CRASHED', 'RUNTIME_CRASHED', [null]]);
    expect(await ending('thrown')).toEqual(['USER_THROWN', 'RUNTIME_CRASHED', ['thrown-in-catch', null]]);
    expect(await ending('cancelled')).toEqual(['SYSTEM_CANCELLED', 'SYSTEM_CANCELLED', [null]]);
    expect(await ending('left')).toEqual(['SYSTEM_RUN_INTERRUPTED', 'SYSTEM_RUN_INTERRUPTED', [null]]);
    expect(await ending('fine')).toEqual([null, null, undefined]);
  });

  it('rebuilds every aggregate: rollups by disposition, groups, failures; replay agrees for every run', async () => {
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    const runs = (await store.listRuns({ limit: 1_000 })).runs;
    for (const run of runs) expect((await store.replayRun(run.id)).diffs, run.id).toEqual([]);
    const failed = runs.filter((r) => r.status === 'failed');
    expect((await store.failureCounts({ by: 'code' })).total).toBe(failed.length);
    // The fail-fast run is found by the crash that ended it, though its newest occurrence is a timeout.
    expect((await store.getRunRow('fast'))?.lastErrorCode).toBe('RUNTIME_TIMEOUT');
    expect((await store.listRuns({ status: ['failed'], code: 'RUNTIME_CRASHED', limit: 1_000 })).runs.map((r) => r.id)).toContain('fast');
    const byHandled = Object.fromEntries((await store.errorCounts({ by: 'handled' })).map((c) => [c.key, c.count]));
    expect(byHandled.pending).toBe(1);
    expect((await store.errorGroups()).reduce((n, g) => n + g.unhandled, 0)).toBe(byHandled.unhandled);
  });

  it('keeps working on the migrated rows: the live run ends and settles its pending occurrence', async () => {
    const live = caughtAndCompleted('live', { start: T0 + 300_000 });
    await store.appendEvents(live.events.slice(-1));
    expect(await disposition('live')).toEqual({ crash: 'handled' });
    expect((await store.replayRun('live')).diffs).toEqual([]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });
});
