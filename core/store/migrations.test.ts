import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, openDatabase, openSqliteStore, SCHEMA_VERSION, schemaVersion } from './index.js';
import { ATTEMPTS, CHECKPOINTS, columnName, ERRORS, RUNS, STEPS, TASKS } from './projection/table-specs.js';
import { JournalBuilder, randomJournals } from './testing/journal-builder.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-migrate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const V1_TABLES = ['events', 'runs', 'steps', 'tasks', 'attempts', 'errors', 'checkpoints', 'error_rollups'];

function dump(db: ReturnType<typeof openDatabase>, table: string, cols = '*'): unknown[] {
  return db.prepare(`SELECT ${cols} FROM ${table} ORDER BY 1, 2, 3`).all();
}

describe('migrations', () => {
  it('are numbered 1..n without a gap, and the schema version is the last one', () => {
    // Versions were handed to branches built side by side (14 to 17); on main they are dense again.
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(versions.at(-1));
  });

  it("every version has its SQLite part, and every version from PostgreSQL's baseline (9) on has its PostgreSQL part", () => {
    expect(MIGRATIONS.filter((m) => m.sqlite === undefined).map((m) => m.version)).toEqual([]);
    const postgresFrom9 = MIGRATIONS.filter((m) => (m.postgres !== undefined) !== m.version >= 9).map((m) => m.version);
    expect(postgresFrom9).toEqual([]);
  });

  it('upgrade a database made by the first schema, keeping every row', () => {
    // Realistic v1 content: what the store writes, restricted to the tables v1 has.
    const source = openSqliteStore({ path: join(dir, 'source.db'), recover: false });
    for (const j of randomJournals(9, 25)) source.appendEvents(j);
    source.appendEvents(new JournalBuilder('left-open').start().runStep([{ attempts: ['ok'] }]).events);
    // A virtual-clock run whose clock ran a day ahead: v1 journaled no wall time for it.
    const ahead = Date.now() + 86_400_000;
    source.appendEvents(
      new JournalBuilder('virtual-ahead', { clock: 'virtual', start: ahead })
        .start()
        .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'slow' }, 'ok'] }])
        .complete().events,
    );
    source.close();

    const v1Path = join(dir, 'v1.db');
    const v1 = openDatabase({ path: v1Path });
    expect(migrate(v1, 1)).toEqual([1]);
    expect(schemaVersion(v1)).toBe(1);
    v1.prepare('ATTACH DATABASE ? AS src').run(join(dir, 'source.db'));
    const v1Cols: Record<string, string> = {};
    for (const table of V1_TABLES) {
      const cols = (v1.prepare(`PRAGMA main.table_info(${table})`).all() as { name: string }[]).map((c) => c.name).join(', ');
      v1Cols[table] = cols;
      if (table !== 'error_rollups') v1.exec(`INSERT INTO main.${table} (${cols}) SELECT ${cols} FROM src.${table}`);
    }
    // What v1 wrote: an error's ts was its event's (the run's clock), and rollups bucketed by it.
    v1.exec(`
      UPDATE main.errors SET ts = (SELECT e.ts FROM main.events AS e WHERE e.run_id = errors.run_id AND e.seq = errors.seq);
      INSERT INTO main.error_rollups (bucket, category, origin, code, flow, count)
        SELECT ts - ts % 60000, category, origin, code, flow, COUNT(*) FROM main.errors GROUP BY 1, 2, 3, 4, 5;
    `);
    v1.exec('DETACH DATABASE src');
    const before = Object.fromEntries(V1_TABLES.map((t) => [t, dump(v1, t)]));
    const migratedAt = Date.now();
    expect((before.errors as unknown[]).length).toBeGreaterThan(20);
    v1.close();

    const store = openSqliteStore({ path: v1Path, recover: false });
    try {
      expect(schemaVersion(store.database)).toBe(SCHEMA_VERSION);
      // Version 4: the virtual run's times are capped at the migration's time, never in the future.
      const ahead = store.getRun('virtual-ahead')!.run;
      expect(ahead.startedAt).toBeGreaterThan(Date.now());
      expect(ahead.startedWall).toBeGreaterThanOrEqual(migratedAt);
      expect(ahead.startedWall).toBeLessThanOrEqual(Date.now());
      expect(ahead.endedWall).toBe(ahead.startedWall);
      const aheadErrors = store.listErrors({ runId: 'virtual-ahead' }).errors;
      expect(aheadErrors.length).toBe(1);
      expect(aheadErrors[0]!.ts).toBeLessThanOrEqual(Date.now());
      const walls = store.database.prepare("SELECT DISTINCT wall FROM events WHERE run_id = 'virtual-ahead'").all() as { wall: number }[];
      expect(walls.map((w) => w.wall)).toEqual([ahead.startedWall]);
      // Real-clock runs' times are their own; their events store no separate wall time.
      expect(store.database.prepare("SELECT COUNT(*) AS n FROM events WHERE wall IS NOT NULL AND run_id <> 'virtual-ahead'").get()).toEqual({ n: 0 });
      // Version 3 added `delta`: rows from before hold the whole state.
      expect(store.database.prepare('SELECT COUNT(*) AS n FROM checkpoints WHERE delta <> 0').get()).toEqual({ n: 0 });
      // Rollups are rebuilt (bucketed by wall time, split by handled): verifyAggregates checks them.
      for (const table of V1_TABLES.filter((t) => t !== 'error_rollups')) {
        const rows = (
          table === 'errors'
            ? dump(store.database, table, v1Cols[table]!).filter((r) => (r as { run_id: string }).run_id !== 'virtual-ahead')
            : dump(store.database, table, v1Cols[table]!)
        ) as Record<string, unknown>[];
        const expected = table === 'errors' ? (before[table] as { run_id: string }[]).filter((r) => r.run_id !== 'virtual-ahead') : before[table];
        expect(rows, table).toEqual(expected);
      }
      // Backfilled: hour/day rollups and error groups agree with the errors table.
      expect(store.verifyAggregates().diffs).toEqual([]);
      expect(store.errorGroups({ limit: 1000 }).reduce((n, g) => n + g.count, 0)).toBe((before.errors as unknown[]).length);
      // Version 14: every stored group is announced already (by the migration), so no `new` fires for history.
      const announced = store.database.prepare("SELECT fingerprint, actor, host FROM issue_log WHERE kind = 'new' ORDER BY fingerprint").all();
      expect(announced).toEqual(
        store
          .errorGroups({ limit: 1000 })
          .map((g) => ({ fingerprint: g.fingerprint, actor: 'system', host: 'migration-14' }))
          .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1)),
      );
      // Projections still match their journals, and the store keeps working on the old rows.
      for (const { id } of store.listRuns({ limit: 1000 }).runs) expect(store.replayRun(id).diffs, id).toEqual([]);
      // v1 had no run owners: the run left open is recovered as interrupted.
      expect(store.recoverInterrupted().map((r) => r.runId)).toEqual(['left-open']);
      expect(store.replayRun('left-open').diffs).toEqual([]);
    } finally {
      store.close();
    }
    // Opening again migrates nothing.
    const again = openDatabase({ path: v1Path });
    expect(migrate(again)).toEqual([]);
    again.close();
  });

  it('refuses a database from a newer Hivewatch', () => {
    const db = openDatabase({ path: join(dir, 'future.db') });
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(/newer than this Hivewatch/);
    db.close();
  });

  it('the current schema has exactly the columns the row specs map', () => {
    const store = openSqliteStore({ path: ':memory:' });
    for (const spec of [RUNS, STEPS, TASKS, ATTEMPTS, ERRORS, CHECKPOINTS] as const) {
      const cols = (store.database.prepare(`PRAGMA table_info(${spec.table})`).all() as { name: string }[]).map((c) => c.name);
      expect(cols, spec.table).toEqual(spec.columns.map(([key]) => columnName(key)));
    }
    store.close();
  });
});
