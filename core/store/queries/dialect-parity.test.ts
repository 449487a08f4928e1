import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { completeCommand, enqueueCommand, getCommand, pendingCommands, runHost } from './commands.js';
import { attemptTelemetry, externalSession, quietExternalSessions } from './external.js';
import { resumePointForRun } from '../hosts/recovery.js';
import { replayRun, verifyAggregates } from '../maintenance/replay.js';
import { ensureSetting, getSetting } from './settings.js';
import { openSqliteStore } from '../sqlite/store.js';
import { randomJournals } from '../testing/journal-builder.js';
import { errorCounts, errorSeries, listErrors, type ErrorDimension } from './errors.js';
import { allJournal, eventsAfterCommit, getEvents, getJournalPage, journalHead } from './events.js';
import { FAILURE_DIMENSIONS, failureCounts } from './failures.js';
import { errorGroups, groupBins, groupTrends } from './groups.js';
import { runLineage } from './lineage.js';
import { Dialect, runAsync, runSync, type Query, type SqlStep } from './plan.js';
import { RUN_SORT_KEYS } from '../../common/run-filter.js';
import { getRun, listRuns, type RunFilters, type RunSort } from './runs.js';
import { countRuns } from './run-counts.js';
import { StatementCache } from './sql.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * The same query code answers the same on both engines: a SQLite store filled with realistic
 * journals is copied row for row into PostgreSQL tables of the same columns (a mirror of the
 * SQLite schema, not the PostgreSQL engine's own: that one is the conformance suite's), and
 * every query runs over both with the same arguments. The FTS5 tables are not copied: PostgreSQL
 * searches text with ILIKE.
 */

const { binaries, reason } = findPostgres();
// Never skipped silently: the reason is printed with the suite's output.
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

/** The PostgreSQL engine's parsing of counts and sums (int8, numeric) to numbers. */
const asNumbers = { getTypeParser: (oid: number, format?: string) => (oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format as 'text')) };

/** Every base table of the SQLite schema, same columns, same key, INTEGER as BIGINT; `run_commands` gains its identity id. */
async function mirror(db: Database.Database, client: pg.Client): Promise<void> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'run_text%' AND name NOT LIKE 'task_text%'")
    .all() as { name: string }[];
  for (const { name } of tables) {
    const columns = db.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string; pk: number }[];
    const typed = columns.map((c) => `${c.name} ${/INT/i.test(c.type) ? 'BIGINT' : /REAL/i.test(c.type) ? 'DOUBLE PRECISION' : 'TEXT'}`);
    if (name === 'run_commands') typed.push('id BIGINT GENERATED ALWAYS AS IDENTITY');
    const key = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    await client.query(`CREATE TABLE ${name} (${typed.join(', ')}${key.length > 0 ? `, PRIMARY KEY (${key.join(', ')})` : ''})`);
    // run_commands in insertion order, so its identity ids follow SQLite's rowids.
    for (const row of db.prepare(`SELECT * FROM ${name}${name === 'run_commands' ? ' ORDER BY rowid' : ''}`).all() as Record<string, unknown>[]) {
      const names = Object.keys(row);
      await client.query(
        `INSERT INTO ${name} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        names.map((n) => row[n]),
      );
    }
  }
}

describe.skipIf(!binaries)(skipTitle('store queries answer the same on SQLite and PostgreSQL', reason), () => {
  let cluster: PostgresCluster;
  let client: pg.Client;
  let dir: string | undefined;
  let db: Database.Database;
  let cache: StatementCache;

  const execute = async (step: SqlStep): Promise<unknown> => {
    let n = 0;
    const result = await client.query({ text: step.sql.replace(/\?/g, () => `$${++n}`), values: [...step.params], types: asNumbers });
    if (step.mode === 'all') return result.rows;
    if (step.mode === 'get') return result.rows[0];
    return { changes: result.rowCount ?? 0 };
  };

  /** The query's answer on each engine. */
  async function onBoth<T>(query: (dialect: Dialect) => Query<T>): Promise<{ sqlite: T; postgres: T }> {
    return { sqlite: runSync(cache, query(Dialect.sqlite)), postgres: await runAsync(execute, query(Dialect.postgres)) };
  }

  async function expectSame<T>(query: (dialect: Dialect) => Query<T>, label = ''): Promise<T> {
    const { sqlite, postgres } = await onBoth(query);
    expect(postgres, label).toEqual(sqlite);
    return sqlite;
  }

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    dir = mkdtempSync(join(tmpdir(), 'hw-dialect-parity-'));
    const store = openSqliteStore({ path: join(dir, 'store.db'), recover: false });
    for (const events of randomJournals(5, 60, { spanMs: 10 * 86_400_000 })) store.appendEvents(events);
    store.close();
    db = new Database(join(dir, 'store.db'));
    cache = new StatementCache(db);
    // Two commands of one instant: their order is the insertion order on both engines.
    runSync(cache, enqueueCommand(Dialect.sqlite, { commandId: 'c1', runId: 'run-5-1', kind: 'cancel', reason: 'first' }, 5));
    runSync(cache, enqueueCommand(Dialect.sqlite, { commandId: 'c2', runId: 'run-5-1', kind: 'cancel', reason: 'second' }, 5));
    client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    await mirror(db, client);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    cluster?.stop();
    db?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('lists and counts runs under every filter and sort, page after page', async () => {
    const first = db.prepare('SELECT started_at FROM runs ORDER BY started_at LIMIT 1 OFFSET 10').get() as { started_at: number };
    const filters: RunFilters[] = [
      {},
      { status: 'failed' },
      { status: ['failed', 'completed'] },
      { flow: 'a' },
      { flow: 'flows/b.prose' },
      // Upper case: PostgreSQL must search without case, as SQLite does.
      { text: 'RUN-5-1' },
      { text: 'ti' },
      { text: 'timeout' },
      { since: first.started_at },
      { code: 'TOOL_TIMEOUT' },
      { code: 'RUNTIME_TIMEOUT' },
      { category: 'runtime' },
      { anyCode: 'RUNTIME_TIMEOUT' },
      { anyCategory: 'agent', status: 'completed' },
    ];
    let matched = 0;
    for (const filter of filters) {
      for (const key of RUN_SORT_KEYS) {
        for (const sort of [key, `-${key}`] as RunSort[]) {
          let cursor: string | null = null;
          for (let page = 0; page < 4; page += 1) {
            const found: { nextCursor: string | null; runs: unknown[] } = await expectSame(
              (d) => listRuns(d, { ...filter, sort, limit: 7, cursor }),
              JSON.stringify({ filter, sort, page }),
            );
            matched += found.runs.length;
            cursor = found.nextCursor;
            if (cursor === null) break;
          }
        }
      }
      await expectSame((d) => countRuns(d, filter), JSON.stringify(filter));
    }
    expect(matched).toBeGreaterThan(1_000);
  });

  it('reads a run, its journal, lineage, replay parity and resume point', async () => {
    const runs = db.prepare("SELECT id FROM runs WHERE status = 'failed' ORDER BY id LIMIT 3").all() as { id: string }[];
    expect(runs).toHaveLength(3);
    for (const { id } of runs) {
      await expectSame((d) => getRun(d, id));
      await expectSame((d) => runLineage(d, id));
      await expectSame((d) => getEvents(d, id, 2, 5));
      await expectSame((d) => getJournalPage(d, id, 2, 5));
      await expectSame((d) => allJournal(d, id));
      expect((await expectSame((d) => replayRun(d, id))).ok).toBe(true);
      await expectSame((d) => runHost(d, id));
      await expectSame((d) => attemptTelemetry(d, id));
      await expectSame((d) => resumePointForRun(d, id));
    }
  });

  it('counts, lists and groups errors under every dimension, window and filter', async () => {
    const span = db.prepare('SELECT MIN(ts) AS lo, MAX(ts) AS hi FROM errors').get() as { lo: number; hi: number };
    // Edges off the minute and hour: the rollups and the partial edges are both read.
    const windows = [{}, { since: span.lo + 1_234_567, until: span.hi - 7_654_321 }];
    const filters = [{}, { disposition: 'handled' }, { disposition: 'unhandled' }, { disposition: 'pending' }, { flow: 'a' }, { category: 'tool' }] as const;
    const dimensions: ErrorDimension[] = ['category', 'origin', 'code', 'flow', 'handled', 'run', 'task'];
    for (const window of windows) {
      for (const filter of filters) {
        const label = JSON.stringify({ window, filter });
        for (const by of dimensions) await expectSame((d) => errorCounts(d, { by, ...window, ...filter }), `${by} ${label}`);
        await expectSame((d) => errorGroups(d, { ...window, ...filter }), label);
        await expectSame((d) => errorGroups(d, { ...window, ...filter, sort: 'last_seen' }), label);
        const page = await expectSame((d) => listErrors(d, { ...window, ...filter, limit: 20 }), label);
        if (page.nextCursor !== null) await expectSame((d) => listErrors(d, { ...window, ...filter, limit: 20, cursor: page.nextCursor }), label);
      }
    }
    const whole = { since: span.lo, until: span.hi + 1 };
    await expectSame((d) => errorSeries(d, { bucket: 'hour', stackBy: 'code', ...whole, disposition: 'unhandled' }));
    const fingerprints = (db.prepare('SELECT fingerprint FROM error_groups ORDER BY fingerprint LIMIT 5').all() as { fingerprint: string }[]).map(
      (r) => r.fingerprint,
    );
    await expectSame((d) => groupTrends(d, { fingerprints, grain: 'day', ...whole, disposition: 'handled' }));
    await expectSame((d) => groupBins(d, { fingerprints, ...whole, bins: 17, flow: 'a' }));
    expect((await expectSame((d) => verifyAggregates(d))).ok).toBe(true);
  });

  it('counts failures under every dimension, window and filter', async () => {
    const span = db.prepare("SELECT MIN(ended_wall) AS lo, MAX(ended_wall) AS hi FROM runs WHERE status = 'failed'").get() as { lo: number; hi: number };
    const windows = [{}, { since: span.lo + 1_234_567, until: span.hi - 7_654_321 }];
    const filters = [{}, { flow: 'a' }, { category: 'runtime' }, { code: 'RUNTIME_TIMEOUT' }, { origin: 'runtime:fake' }];
    let total = 0;
    for (const window of windows) {
      for (const filter of filters) {
        for (const by of FAILURE_DIMENSIONS)
          total += (await expectSame((d) => failureCounts(d, { by, ...window, ...filter }), `${by} ${JSON.stringify({ window, filter })}`)).total;
      }
    }
    expect(total).toBeGreaterThan(0);
  });

  it('reads the commit order, commands, sessions and settings, and writes alike', async () => {
    await expectSame((d) => eventsAfterCommit(d, 10, 5));
    await expectSame((d) => journalHead(d));
    expect((await expectSame((d) => pendingCommands(d, ['run-5-1']))).map((c) => c.commandId)).toEqual(['c1', 'c2']);
    await expectSame((d) => getCommand(d, 'c1'));
    await expectSame((d) => externalSession(d, 'none'));
    await expectSame((d) => quietExternalSessions(d, Number.MAX_SAFE_INTEGER));
    expect(await expectSame((d) => completeCommand(d, 'c2', { accepted: true }, 9))).toBe(true);
    await expectSame((d) => getSetting(d, 'test.secret'));
    expect(await expectSame((d) => ensureSetting(d, 'test.secret', () => 'first', 1))).toBe('first');
    // A second process's candidate never replaces the value the first one stored.
    expect(
      await runAsync(
        execute,
        ensureSetting(Dialect.postgres, 'test.secret', () => 'second', 2),
      ),
    ).toBe('first');
  });
});
