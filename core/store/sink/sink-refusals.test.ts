import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { HivewatchStore } from '../contract.js';
import { openStore } from '../open.js';
import { postgresBinaries, TestDatabases } from '../testing/test-databases.js';
import { createDurableSink, type Refusal } from './sink.js';
import { JournalBuilder } from '../testing/journal-builder.js';

/**
 * A journal write the database refuses for what it holds ends that run's
 * journal with SYSTEM_EVENT_REJECTED and lets every other run's events through, on both engines.
 * The refusals are the databases' own: a trigger's RAISE on SQLite, a CHECK constraint on
 * PostgreSQL, each refusing a task output that says "poison" (and, for one run, everything after
 * its second event).
 */

interface Engine {
  name: string;
  fresh(): Promise<string>;
  /** Makes the database refuse a task output containing "poison", and events of run `doomed` after seq 2. */
  refuse(location: string): Promise<void>;
  /** Lets it accept them again. */
  accept(location: string): Promise<void>;
  reason: RegExp;
}

const dirs: string[] = [];
const sqlite: Engine = {
  name: 'SQLite',
  fresh: () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-refusals-'));
    dirs.push(dir);
    return Promise.resolve(join(dir, 'hivewatch.db'));
  },
  refuse: (location) => {
    const db = new Database(location);
    db.exec(`
      CREATE TRIGGER refuse_poison_insert BEFORE INSERT ON tasks WHEN NEW.output LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poison output refused'); END;
      CREATE TRIGGER refuse_poison_update BEFORE UPDATE ON tasks WHEN NEW.output LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poison output refused'); END;
      CREATE TRIGGER refuse_doomed BEFORE INSERT ON events WHEN NEW.run_id = 'doomed' AND NEW.seq > 2 BEGIN SELECT RAISE(ABORT, 'doomed run refused'); END;`);
    db.close();
    return Promise.resolve();
  },
  accept: (location) => {
    const db = new Database(location);
    db.exec('DROP TRIGGER refuse_poison_insert; DROP TRIGGER refuse_poison_update; DROP TRIGGER refuse_doomed;');
    db.close();
    return Promise.resolve();
  },
  reason: /poison output refused/,
};

const databases = new TestDatabases();
async function onPostgres(location: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  await client.query(sql);
  await client.end();
}
const postgres: Engine = {
  name: 'PostgreSQL',
  fresh: () => databases.fresh('refusals'),
  refuse: (location) =>
    onPostgres(
      location,
      `ALTER TABLE tasks ADD CONSTRAINT no_poison CHECK (output IS NULL OR output NOT LIKE '%poison%');
      ALTER TABLE events ADD CONSTRAINT no_doomed CHECK (run_id <> 'doomed' OR seq <= 2)`,
    ),
  accept: (location) => onPostgres(location, 'ALTER TABLE tasks DROP CONSTRAINT no_poison; ALTER TABLE events DROP CONSTRAINT no_doomed'),
  reason: /violates check constraint "no_poison"/,
};

beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A run whose second task answers `output`: its taskSucceeded is the 9th event. */
const runWith = (runId: string, output: string): HivewatchEvent[] =>
  new JournalBuilder(runId)
    .start()
    .runStep([{ attempts: ['ok'] }])
    .runStep([{ attempts: ['ok'] }])
    .complete()
    .events.map((e) => (e.type === 'taskSucceeded' && e.step === 2 ? { ...e, output } : e));

/** Two runs' events interleaved as one host's engine would append them. */
const interleave = (a: readonly HivewatchEvent[], b: readonly HivewatchEvent[]): HivewatchEvent[] =>
  Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
    .flat()
    .filter((e): e is HivewatchEvent => e !== undefined);

describe.each(postgresBinaries ? [sqlite, postgres] : [sqlite])('a write the database refuses, on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('ends the refused run with SYSTEM_EVENT_REJECTED and journals every other run; the run’s own flush stops its engine', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location });
    open.push(store);
    await engine.refuse(location);
    const refusals: Refusal[] = [];
    const sink = createDurableSink(store, { retryDelaysMs: [], onRefused: (r) => refusals.push(r) });
    const [good, bad] = [sink.forRun(), sink.forRun()];
    const goodRun = runWith('good', 'fine');
    const badRun = runWith('bad', 'this is poison');
    const poisoned = badRun.findIndex((e) => e.type === 'taskSucceeded' && e.step === 2);
    for (const event of interleave(goodRun, badRun.slice(0, poisoned + 2))) (event.runId === 'good' ? good : bad).append(event);

    await good.flush();
    await expect(bad.flush()).rejects.toMatchObject({ code: 'SYSTEM_EVENT_REJECTED' });
    expect(sink.pending).toBe(0);
    expect(await store.getEvents('good')).toEqual(goodRun);
    expect((await store.getRunRow('good'))?.status).toBe('completed');

    const journal = await store.getEvents('bad');
    expect(journal.slice(0, poisoned)).toEqual(badRun.slice(0, poisoned));
    expect(journal.slice(poisoned).map((e) => [e.seq, e.type])).toEqual([
      [poisoned + 1, 'errorOccurred'],
      [poisoned + 2, 'runFailed'],
    ]);
    const ending = journal.at(-1) as Extract<HivewatchEvent, { type: 'runFailed' }>;
    expect(ending.error.code).toBe('SYSTEM_EVENT_REJECTED');
    expect(ending.error.message).toMatch(new RegExp(`^the database refused event seq ${poisoned + 1} \\(taskSucceeded\\) of run bad: `));
    expect(ending.error.message).toMatch(engine.reason);
    expect(ending.error.recovery_hint).not.toMatch(/disk space/);
    expect(String(ending.error.context.event)).toContain('this is poison');
    expect((await store.getRunRow('bad'))?.status).toBe('failed');
    expect(refusals.map((r) => [r.runId, r.journaled])).toEqual([['bad', true]]);

    // The engine goes on until it sees the rejection: what it appends is not journaled, its end is.
    bad.append({ ...badRun[poisoned + 2]!, seq: poisoned + 3 });
    await expect(bad.flush()).rejects.toBeInstanceOf(HivewatchError);
    bad.append({ runId: 'bad', seq: poisoned + 4, ts: 1, type: 'runFailed', error: ending.error });
    await bad.flush();
    expect(await store.getEvents('bad')).toEqual(journal);
    expect(await store.replayRun('bad')).toMatchObject({ ok: true });
    // Failed, so resumable: from its last checkpoint (step 1), once the database takes the event.
    expect(await store.resumePointForRun('bad')).toMatchObject({ fromRunId: 'bad', throughStep: 1 });
    await engine.accept(location);
  });

  it('when the database refuses the run’s ending too, says so and keeps rejecting the run’s flush', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location });
    open.push(store);
    await engine.refuse(location);
    const refusals: Refusal[] = [];
    const sink = createDurableSink(store, { retryDelaysMs: [], onRefused: (r) => refusals.push(r) });
    const doomed = sink.forRun();
    const events = runWith('doomed', 'fine');
    for (const event of events) doomed.append(event);
    await expect(doomed.flush()).rejects.toMatchObject({ code: 'SYSTEM_EVENT_REJECTED', message: expect.stringContaining('seq 3 (') });
    expect(refusals.map((r) => [r.runId, r.journaled])).toEqual([['doomed', false]]);
    expect((await store.getEvents('doomed')).map((e) => e.seq)).toEqual([1, 2]);
    // Its terminal event does not make the flush pretend: the run's end is not in the journal.
    await expect(doomed.flush()).rejects.toMatchObject({ code: 'SYSTEM_EVENT_REJECTED' });
    expect(sink.pending).toBe(0);
  });
});
