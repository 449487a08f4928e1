import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import type { HivewatchStore } from '../contract.js';
import { JournalBuilder } from '../testing/journal-builder.js';
import { POSTGRES_SCHEMA_VERSION } from './migrate.js';
import { openPostgresStore, type OpenPostgresStoreOptions } from './store.js';
import { skipTitle } from '../../testing/skip.js';
import { waiting as notYet } from '../../testing/waiting.js';

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

type PgStore = Awaited<ReturnType<typeof openPostgresStore>>;

/** A run with a retried rate limit, then success, then a failed second step. */
function smallRun(runId: string, start = 1_700_000_000_000): HivewatchEvent[] {
  return new JournalBuilder(runId, { flow: 'flows/small.prose', flowName: 'small', start })
    .start()
    .runStep([{ name: 'fetch', attempts: [{ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake' }, 'ok'] }])
    .runStep([{ name: 'summarise', attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }] }])
    .fail().events;
}

/** Resolves on the next call of the returned callback. */
function nextCall(): { callback: () => void; called: () => number; next: () => Promise<void> } {
  let calls = 0;
  let waiting: (() => void) | null = null;
  return {
    callback: () => {
      calls += 1;
      waiting?.();
      waiting = null;
    },
    called: () => calls,
    next: () => new Promise<void>((resolve) => (waiting = resolve)),
  };
}

describe.skipIf(!binaries)(skipTitle('openPostgresStore', reason), () => {
  let cluster: PostgresCluster;
  let admin: pg.Client;
  let databases = 0;
  const opened: HivewatchStore[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
  });

  async function freshUrl(): Promise<string> {
    const name = `store_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    return cluster.url(name);
  }

  async function open(url: string, options: Partial<OpenPostgresStoreOptions> = {}): Promise<PgStore> {
    const store = await openPostgresStore({ url, env: {}, log: () => undefined, ...options });
    opened.push(store);
    return store;
  }

  async function hivewatchConnections(database: string): Promise<number> {
    const { rows } = await admin.query<{ n: string }>("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = 'hivewatch' AND datname = $1", [
      database,
    ]);
    return Number(rows[0]!.n);
  }

  it('journals a run and reads it back through the shared queries', async () => {
    const url = await freshUrl();
    // Trust authentication ignores the password; it is here to be kept out of `location`.
    const store = await open(url.replace(`${cluster.user}@`, `${cluster.user}:s3cret@`));
    expect(store.engine).toBe('postgres');
    expect(store.location).toBe(url.replace(`${cluster.user}@`, `${cluster.user}:***@`));
    const events = smallRun('run-1');
    await store.appendEvents(events);

    expect(await store.getEvents('run-1')).toEqual(events);
    expect(await store.journalHead()).toBe(events.length);
    const tail = await store.eventsAfterCommit(0);
    expect(tail.map((entry) => entry.commitSeq)).toEqual(events.map((_, i) => i + 1));
    expect(tail.map((entry) => entry.event)).toEqual(events);
    const detail = await store.getRun('run-1');
    expect(detail?.run).toMatchObject({ id: 'run-1', status: 'failed', flow: 'flows/small.prose', flowName: 'small' });
    const counts = await store.errorCounts({ by: 'code', since: 0 });
    expect(counts.map((count) => [count.key, count.count]).sort()).toEqual([
      ['RUNTIME_RATE_LIMIT', 1],
      ['RUNTIME_TIMEOUT', 1],
    ]);
    expect((await store.replayRun('run-1')).diffs).toEqual([]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    expect(await store.integrityCheck()).toEqual(['ok']);
    const stats = await store.stats();
    expect(stats).toMatchObject({ schemaVersion: POSTGRES_SCHEMA_VERSION, runs: 1, events: events.length });
    expect(stats.bytes).toBeGreaterThan(0);
  });

  it('runs reads sent at once on separate connections at the same time: both wait on one lock together, then both answer', async () => {
    const url = await freshUrl();
    const store = await open(url);
    await store.appendEvents(smallRun('run-1'));
    const database = new URL(url).pathname.slice(1);
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      const reads = Promise.all([store.getRunRow('run-1'), store.listRuns()]);
      // Serialized reads would leave one waiting on the lock and the other queued behind it, never two.
      await vi.waitFor(
        async () => {
          const { rows } = await admin.query<{ n: number }>(
            "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = 'hivewatch' AND datname = $1 AND wait_event_type = 'Lock'",
            [database],
          );
          if (rows[0]!.n !== 2) notYet(`both reads to wait on the lock at once (${rows[0]!.n} waiting)`);
        },
        { timeout: 30_000 },
      );
      await locker.query('COMMIT');
      const [row, page] = await reads;
      expect(row?.status).toBe('failed');
      expect(page.runs.map((run) => run.id)).toEqual(['run-1']);
    } finally {
      await locker.end();
    }
  });

  it('tells subscribers each committed batch with its walls and commit positions', async () => {
    const store = await open(await freshUrl());
    const seen: { seqs: number[]; walls: number; commitSeqs: number[] }[] = [];
    store.subscribe((events, walls, commitSeqs) => seen.push({ seqs: events.map((e) => e.seq), walls: walls.length, commitSeqs: [...commitSeqs] }));
    const events = smallRun('run-2');
    await store.appendEvents(events.slice(0, 3));
    await store.appendEvents(events.slice(3));
    expect(seen).toEqual([
      { seqs: [1, 2, 3], walls: 3, commitSeqs: [1, 2, 3] },
      { seqs: events.slice(3).map((e) => e.seq), walls: events.length - 3, commitSeqs: events.slice(3).map((_, i) => i + 4) },
    ]);
  });

  it('rolls a bad batch back whole and keeps writing after it', async () => {
    const store = await open(await freshUrl());
    const events = smallRun('run-3');
    await store.appendEvents(events.slice(0, 2));
    await expect(store.appendEvents(events.slice(0, 2))).rejects.toThrow();
    expect(await store.journalHead()).toBe(2);
    await store.appendEvents(events.slice(2));
    expect((await store.getEvents('run-3')).length).toBe(events.length);
  });

  it('calls watchers after another store commits, not after its own commits', async () => {
    const url = await freshUrl();
    const watching = await open(url);
    const other = await open(url);
    const watch = nextCall();
    watching.watchChanges(watch.callback);
    await watching.whenListening();
    const tokenBefore = await watching.changeToken();

    await watching.appendEvents(smallRun('own').slice(0, 2));
    const arrived = watch.next();
    await other.appendEvents(smallRun('theirs').slice(0, 2));
    await arrived;
    // Notifications arrive in commit order: the own one came (and was skipped) first.
    expect(watch.called()).toBe(1);
    expect(await watching.changeToken()).not.toBe(tokenBefore);

    const command = watch.next();
    const tokenBeforeCommand = await watching.changeToken();
    await watching.enqueueCommand({ commandId: 'cmd-0', runId: 'theirs', kind: 'cancel', reason: 'own' });
    await other.enqueueCommand({ commandId: 'cmd-1', runId: 'theirs', kind: 'cancel', reason: 'test' });
    await command;
    expect(watch.called()).toBe(2);
    expect(await watching.changeToken()).not.toBe(tokenBeforeCommand);
    expect((await watching.pendingCommands(['theirs'])).map((c) => c.commandId)).toEqual(['cmd-0', 'cmd-1']);
  });

  it('moves its change token with another store’s commits, not with its own', async () => {
    const url = await freshUrl();
    const [own, other] = [await open(url), await open(url, { recover: false })];
    const start = await own.changeToken();
    await own.appendEvents(smallRun('own').slice(0, 3));
    await own.appendEvents(smallRun('own').slice(3, 5));
    expect(await own.changeToken()).toBe(start);
    // Another commit followed by an own one: the head read is the own one, and it still moves.
    await other.appendEvents(smallRun('theirs').slice(0, 2));
    await own.appendEvents(smallRun('own').slice(5, 6));
    const afterTheirs = await own.changeToken();
    expect(afterTheirs).not.toBe(start);
    await own.appendEvents(smallRun('own').slice(6, 7));
    expect(await own.changeToken()).toBe(afterTheirs);
    await other.appendEvents(smallRun('theirs').slice(2, 3));
    expect(await own.changeToken()).not.toBe(afterTheirs);
  });

  it('listens again after its LISTEN connection is cut, and calls watchers once it is back', async () => {
    const url = await freshUrl();
    const watching = await open(url);
    const other = await open(url);
    const watch = nextCall();
    watching.watchChanges(watch.callback);
    await watching.whenListening();
    const back = watch.next();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hivewatch' AND query LIKE 'LISTEN%'");
    await back;
    await watching.whenListening();
    const later = watch.next();
    await other.appendEvents(smallRun('after-cut').slice(0, 1));
    await later;
    expect(watch.called()).toBe(2);
  });

  it('agrees on one secret when two hosts create it at the same time', async () => {
    const url = await freshUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const values = await Promise.all([a.secret('token', () => 'from-a'), b.secret('token', () => 'from-b')]);
    expect(values[0]).toBe(values[1]);
    expect(['from-a', 'from-b']).toContain(values[0]);
    expect(await a.secret('token', () => 'later')).toBe(values[0]);
  });

  it('knows a run hosted by a closed store as not alive, and the next store recovers it', async () => {
    const url = await freshUrl();
    const first = await open(url);
    await first.appendEvents(smallRun('left-open').slice(0, 4));
    expect(await first.runHost('left-open')).toMatchObject({ alive: true });
    const second = await open(url, { recover: false });
    expect(await second.runHost('left-open')).toMatchObject({ alive: true });
    await first.close();
    expect(await second.runHost('left-open')).toMatchObject({ alive: false });
    const third = await open(url);
    expect(third.recovered.map((run) => run.runId)).toEqual(['left-open']);
    expect((await third.getRun('left-open'))?.run.status).toBe('interrupted');
  });

  it('opens read-only: reads, refuses writes, and refuses a database without the schema', async () => {
    const url = await freshUrl();
    await expect(openPostgresStore({ url, env: {}, readonly: true })).rejects.toThrow(`${url} has no Hivewatch schema, and it is open read-only`);
    const writer = await open(url);
    await writer.appendEvents(smallRun('read-me'));
    const reader = await open(url, { readonly: true });
    expect((await reader.getRun('read-me'))?.run.status).toBe('failed');
    await expect(reader.appendEvents(smallRun('nope'))).rejects.toThrow('the store was opened read-only');
    await expect(reader.setSetting('port', '1')).rejects.toThrow('the store was opened read-only');
    await expect(reader.secret('token', () => 'x')).rejects.toThrow('no token in this database, and it is open read-only');
    // A read-only window still hears the writers.
    const watch = nextCall();
    reader.watchChanges(watch.callback);
    await reader.whenListening();
    const heard = watch.next();
    await writer.appendEvents(smallRun('later').slice(0, 1));
    await heard;
    expect(watch.called()).toBe(1);
  });

  it('integrityCheck names a journal head behind its newest commit position, and a schema it does not know', async () => {
    const url = await freshUrl();
    const store = await open(url);
    await store.appendEvents(smallRun('checked').slice(0, 3));
    expect(await store.integrityCheck()).toEqual(['ok']);
    const direct = new pg.Client({ connectionString: url });
    await direct.connect();
    try {
      await direct.query('UPDATE journal_head SET commit_seq = 1');
      expect(await store.integrityCheck()).toEqual(['journal_head 1 is behind the newest commit position 3']);
      const future = POSTGRES_SCHEMA_VERSION + 1;
      await direct.query("INSERT INTO schema_version (version, name, applied_at) VALUES ($1, 'from the future', 0)", [future]);
      expect(await store.integrityCheck()).toEqual([`schema version ${future}, this Hivewatch expects ${POSTGRES_SCHEMA_VERSION}`]);
    } finally {
      await direct.end();
    }
  });

  it('says where it could not connect, without the password', async () => {
    const url = `postgres://nobody:hunter2@127.0.0.1:${cluster.port}/missing_database`;
    const error = await openPostgresStore({ url, env: {} }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `cannot connect to PostgreSQL at postgres://nobody:***@127.0.0.1:${cluster.port}/missing_database: role "nobody" does not exist`,
    );
  });

  it('leaves no connection behind once closed', async () => {
    const url = await freshUrl();
    const database = url.slice(url.lastIndexOf('/') + 1);
    const a = await open(url);
    const b = await open(url);
    a.watchChanges(() => undefined);
    await a.whenListening();
    await a.appendEvents(smallRun('busy'));
    await b.listRuns();
    expect(await hivewatchConnections(database)).toBeGreaterThan(0);
    await Promise.all([a.close(), b.close()]);
    // A backend leaves pg_stat_activity just after its socket closes: ask until it is gone.
    let left = await hivewatchConnections(database);
    for (let tries = 0; left > 0 && tries < 200; tries += 1) left = await hivewatchConnections(database);
    expect(left).toBe(0);
    await expect(a.listRuns()).rejects.toThrow('the store is closed');
  });
});
