import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../otel/mapping.js';
import { MUTED_FLOWS_SETTING } from '../../service/flows/notify-settings.js';
import { migrate, openDatabase, openSqliteStore, openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { copyHistory } from '../../service/history/copy.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';
import { skipTitle } from '../../testing/skip.js';
import { buildHistory, journal, NOW, readable } from './testing/laptop-history.js';

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
const PASSWORD = 'pw-never-shown-7c1e';

interface Output {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[]): Promise<Output> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), stdout: process.stdout, env: {} };
  const code = await main(args, io);
  return { code, out, err };
}

function subprocess(args: string[]): Promise<Output> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HIVEWATCH_DB: ':memory:' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe.skipIf(!binaries)(skipTitle('hivewatch migrate (SQLite file to PostgreSQL)', reason), () => {
  let cluster: PostgresCluster;
  let admin: pg.Client;
  let databases = 0;
  let dir: string;
  let history: string;
  const opened: HivewatchStore[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    dir = mkdtempSync(join(tmpdir(), 'hw-migrate-'));
    history = join(dir, 'laptop.db');
    await buildHistory(history);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A new empty database's URL, with a password (the loopback cluster trusts, so it is ignored). */
  async function freshUrl(): Promise<string> {
    const name = `migrate_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    return cluster.url(name).replace(`${cluster.user}@`, `${cluster.user}:${PASSWORD}@`);
  }

  async function open(path: string, readonly = false): Promise<HivewatchStore> {
    const store = await openStore({ path, readonly });
    opened.push(store);
    return store;
  }

  it('copies the history exactly: every read equal, the same journal order and walls, aggregates verified', async () => {
    const url = await freshUrl();
    expect(url).toContain(`:${PASSWORD}@`);
    const result = await cli(['migrate', '--from', history, '--to', url, '--batch', '7']);
    expect(result.code).toBe(0);
    const source = await open(history, true);
    const target = await open(url);
    const stats = await source.stats();
    expect(result.err).toBe(`migrate: ${stats.runs}/${stats.runs} runs, ${stats.events}/${stats.events} events\n`);
    expect(result.out).toBe(
      `copied ${stats.runs} runs, ${stats.events} events, ${stats.errors} errors from ${history} to ${target.location} ` +
        `(2 agent sessions; settings ${MUTED_FLOWS_SETTING})\n`,
    );
    expect(`${result.out}${result.err}${target.location}`).not.toContain(PASSWORD);

    expect(await readable(target)).toEqual(await readable(source));
    expect(await journal(target)).toEqual(await journal(source));
    // Issues' status changes come along, in their order: statuses read the same, nothing is new again.
    const changes = async (store: HivewatchStore) => (await store.issues.log()).map(({ id: _id, ...change }) => change);
    expect(await changes(target)).toEqual(await changes(source));
    expect((await changes(target)).filter((c) => c.kind === 'resolved')).toHaveLength(1);
    expect(await target.journalHead()).toBe(stats.events);
    expect(await target.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    for (const { id } of (await target.listRuns({ limit: 500 })).runs) expect((await target.replayRun(id)).diffs).toEqual([]);

    // The virtual-clock run keeps the walls it was journaled at (not the time of the copy).
    const virtualWalls = (await journal(target)).filter((e) => e.event.runId === 'virtual-1').map((e) => e.wall);
    expect(new Set(virtualWalls)).toEqual(new Set([NOW, NOW + 1_234]));
    expect((await target.getRunRow('chain-2'))?.resumedFrom).toBe('chain-1');
    expect(await target.runLineage('chain-2')).toEqual(await source.runLineage('chain-2'));

    // The agent session continues on the team database; the machine's own settings stay behind.
    // The open one is copied as it is (running), not refused: no process of the laptop hosts it. The ended one's last prompt
    // failed (a 401), so it ended failed.
    const external = (await source.listRuns({ text: 'session', limit: 10 })).runs;
    expect(external.map((r) => [r.flow, r.status]).sort()).toEqual([
      ['external:claude-code', 'failed'],
      ['external:codex-cli', 'running'],
    ]);
    for (const run of external) {
      const started = (await source.getEvents(run.id, 0, 1))[0];
      const key = sessionKeyOf(started?.type === 'runStarted' && started.external ? started.external : { origin: '?', sessionId: '?' });
      expect(await target.externalSession(key)).toEqual(await source.externalSession(key));
      expect(await target.externalSession(key)).not.toBeNull();
    }
    expect(await target.getSetting(MUTED_FLOWS_SETTING)).toBe(JSON.stringify(['flows/a.prose']));
    expect(await target.getSetting('http.token')).toBeNull();
    // Every copied run of a flow is finished: none is left with a host on the team database.
    for (const { id, flow } of (await target.listRuns({ limit: 500 })).runs) if (!flow.startsWith('external:')) expect(await target.runHost(id)).toBeNull();
  });

  it('a second migrate copies nothing and says the runs are already there; a different run with a source id is refused', async () => {
    const url = await freshUrl();
    expect((await cli(['migrate', '--from', history, '--to', url])).code).toBe(0);
    const stats = await (await open(history, true)).stats();
    const again = await cli(['migrate', '--from', history, '--to', url]);
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      `copied 0 runs, 0 events, 0 errors from ${history} to ${url.replace(PASSWORD, '***')} (skipped ${stats.runs} runs already there; 2 agent sessions)\n`,
    );
    const target = await open(url);
    expect(await target.journalHead()).toBe(stats.events);

    // Another database where one of the source's run ids holds other events: refused, nothing written.
    const other = await freshUrl();
    const clash = await open(other);
    await clash.appendEvents(new JournalBuilder('chain-1', { start: NOW }).start().complete().events);
    await clash.appendEvents(new JournalBuilder('virtual-1', { start: NOW }).start().events);
    const refused = await cli(['migrate', '--from', history, '--to', other]);
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      `hivewatch migrate: ${other.replace(PASSWORD, '***')} already has 2 run(s) of ${history} with other events (chain-1, virtual-1); nothing was copied\n`,
    );
    expect(await clash.journalHead()).toBe(3);
  });

  it('a copy that fails mid-way leaves whole runs only, and running it again finishes it exactly', async () => {
    const url = await freshUrl();
    const source = await open(history, true);
    const target = await open(url);
    let batches = 0;
    const failing = new Proxy(target, {
      get(store, name, receiver) {
        if (name === 'appendEvents') {
          return async (...args: Parameters<HivewatchStore['appendEvents']>) => {
            if (++batches === 2) throw new Error('connection lost');
            return store.appendEvents(...args);
          };
        }
        return Reflect.get(store, name, receiver) as unknown;
      },
    });
    await expect(copyHistory(source, failing, { batchEvents: 20 })).rejects.toThrow('connection lost');
    const partial = (await target.listRuns({ limit: 500 })).runs;
    expect(partial.length).toBeGreaterThan(0);
    for (const run of partial) expect(run.lastSeq).toBe((await source.getRunRow(run.id))!.lastSeq);

    const report = await copyHistory(source, target, { batchEvents: 20 });
    expect(report.skippedRuns).toBe(partial.length);
    expect(await readable(target)).toEqual(await readable(source));
    expect(await target.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });

  it('refuses a history with active runs until recovery has interrupted them', async () => {
    const file = join(dir, 'active.db');
    const laptop = openSqliteStore({ path: file });
    laptop.appendEvents(
      new JournalBuilder('done-1', { start: NOW })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    );
    laptop.appendEvents(new JournalBuilder('open-1', { start: NOW }).start().dieDuringStep([{ attempts: ['ok'] }]).events);
    const url = await freshUrl();
    // The app is still running (its store open): the run is live there.
    const refused = await cli(['migrate', '--from', file, '--to', url]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`hivewatch migrate: ${file} has 1 active run(s) (open-1): their host is this machine`);
    expect(refused.err).toContain(`run \`hivewatch runs --db ${file}\` once`);
    laptop.close();

    // What the message says: any history command recovers the stopped app's runs.
    expect((await cli(['runs', '--db', file])).code).toBe(0);
    const result = await cli(['migrate', '--from', file, '--to', url]);
    expect(result.code).toBe(0);
    const target = await open(url);
    expect((await target.getRunRow('open-1'))?.status).toBe('interrupted');
    const source = await open(file, true);
    expect(await target.resumePointForRun('open-1')).toEqual(await source.resumePointForRun('open-1'));
    expect(await readable(target)).toEqual(await readable(source));
  });

  it('--dry-run writes nothing (not even the schema) and --json prints the summary', async () => {
    const url = await freshUrl();
    const result = await cli(['migrate', '--from', history, '--to', url, '--dry-run', '--json']);
    expect(result.code).toBe(0);
    const stats = await (await open(history, true)).stats();
    expect(JSON.parse(result.out)).toEqual({
      from: history,
      to: url.replace(PASSWORD, '***'),
      runs: stats.runs,
      events: stats.events,
      errors: stats.errors,
      skippedRuns: 0,
      sessions: 2,
      settings: [MUTED_FLOWS_SETTING],
      dryRun: true,
    });
    const name = url.slice(url.lastIndexOf('/') + 1);
    const client = new pg.Client({ connectionString: cluster.url(name) });
    await client.connect();
    const tables = await client.query("SELECT COUNT(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
    await client.end();
    expect(tables.rows[0]).toEqual({ n: 0 });
  });

  it('refuses an older file, a missing file, and wrong arguments, with clear messages and exit codes', async () => {
    const old = join(dir, 'old.db');
    const db = openDatabase({ path: old });
    migrate(db, 4);
    db.close();
    const url = await freshUrl();
    const tooOld = await cli(['migrate', '--from', old, '--to', url]);
    expect(tooOld.code).toBe(1);
    expect(tooOld.err).toMatch(new RegExp(`^hivewatch migrate: ${old} is at schema version 4, and this Hivewatch copies version \\d+: open it once`));
    expect(await cli(['migrate', '--from', join(dir, 'nope.db'), '--to', url])).toMatchObject({
      code: 1,
      err: `hivewatch migrate: no such file: ${join(dir, 'nope.db')}\n`,
    });
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'not a database, just notes\n'.repeat(100));
    expect(await cli(['migrate', '--from', notDb, '--to', url])).toMatchObject({
      code: 1,
      err: `hivewatch migrate: cannot read ${notDb} as a Hivewatch database: file is not a database\n`,
    });
    expect(await cli(['migrate', '--from', history])).toMatchObject({
      code: 64,
      err: 'hivewatch migrate: needs --from <sqlite file> and --to <postgres://… URL>\n',
    });
    expect((await cli(['migrate', '--from', history, '--to', join(dir, 'x.db')])).err).toBe(
      'hivewatch migrate: --to must be a PostgreSQL URL (postgres://user@host:5432/database)\n',
    );
    expect((await cli(['migrate', '--from', url, '--to', url])).code).toBe(64);
  });

  it('runs as the real binary: progress on stderr, the JSON summary on stdout, no password anywhere', async () => {
    const url = await freshUrl();
    const result = await subprocess(['migrate', '--from', history, '--to', url, '--json', '--batch', '50']);
    expect(result.code).toBe(0);
    const stats = await (await open(history, true)).stats();
    expect(JSON.parse(result.out)).toMatchObject({ runs: stats.runs, events: stats.events, dryRun: false });
    expect(result.err).toMatch(new RegExp(`migrate: ${stats.runs}/${stats.runs} runs, ${stats.events}/${stats.events} events\\n$`));
    expect(`${result.out}${result.err}`).not.toContain(PASSWORD);
  });
});
