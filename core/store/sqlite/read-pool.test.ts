import Database from 'better-sqlite3';
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { all, get, run, type Query } from '../queries/plan.js';
import { prng, randomJournals } from '../testing/journal-builder.js';
import { SqliteReadPool } from './read-pool.js';
import { openSqliteStore } from './store.js';
import type { SqliteStore } from './types.js';
import { waiting } from '../../testing/waiting.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * The read pool on a real file: real worker threads with real read-only connections, beside the
 * store's connection writing on the main thread.
 */

const temp = tempDirs();
const pools: SqliteReadPool[] = [];
const writers: SqliteStore[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  for (const writer of writers.splice(0)) writer.close();
});

async function opened(size: number, log: string[] = []): Promise<{ path: string; writer: SqliteStore; pool: SqliteReadPool }> {
  const path = join(temp('hw-read-pool-'), 'hivewatch.db');
  const writer = openSqliteStore({ path });
  writers.push(writer);
  const pool = await SqliteReadPool.open({ path, size, fallback: (query) => writer.readPlan(query), log: (line) => log.push(line) });
  pools.push(pool);
  return { path, writer, pool };
}

/** How many round trips a read that waits on another may take before it gives up: never reached when reads overlap. */
const STEP_BOUND = 5_000;

type Snapshot = Record<'events' | 'seqs' | 'errors' | 'minute' | 'day' | 'groups' | 'runErrors', number>;

function* count(sql: string): Query<number> {
  return (yield* get<{ n: number }>(sql))?.n ?? 0;
}

/** The journal's invariants, one statement each: they agree only if every statement read one snapshot. */
function* snapshot(): Query<Snapshot> {
  return {
    events: yield* count('SELECT COUNT(*) AS n FROM events'),
    seqs: yield* count('SELECT COALESCE(SUM(last_seq), 0) AS n FROM runs'),
    errors: yield* count('SELECT COUNT(*) AS n FROM errors'),
    minute: yield* count('SELECT COALESCE(SUM(count), 0) AS n FROM error_rollups'),
    day: yield* count('SELECT COALESCE(SUM(count), 0) AS n FROM error_rollups_day'),
    groups: yield* count('SELECT COALESCE(SUM(count), 0) AS n FROM error_groups'),
    runErrors: yield* count('SELECT COALESCE(SUM(error_count), 0) AS n FROM runs'),
  };
}

function consistent(s: Snapshot): boolean {
  return s.events === s.seqs && [s.minute, s.day, s.groups, s.runErrors].every((n) => n === s.errors);
}

/** Seeded batches of several runs' events, interleaved (as a busy host journals them). */
function batches(seed: number): HivewatchEvent[][] {
  const random = prng(seed);
  const queues = randomJournals(seed, 30).map((journal) => [...journal]);
  const out: HivewatchEvent[][] = [];
  while (queues.some((queue) => queue.length > 0)) {
    const batch: HivewatchEvent[] = [];
    for (const queue of queues.filter((q) => q.length > 0).slice(0, 4)) batch.push(...queue.splice(0, 1 + Math.floor(random() * 20)));
    out.push(batch);
  }
  return out;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Two reads sent one after the other: the first keeps its transaction open, a statement at a time,
 * until the second is answered (or STEP_BOUND statements). Which was answered first, and how many
 * statements the first ran, tell whether they overlapped: on one connection the second waits for
 * the first, which then runs out its bound.
 */
async function firstWaitsForSecond(pool: SqliteReadPool): Promise<{ answered: string[]; steps: number; second: unknown }> {
  const answered: string[] = [];
  let secondAnswered = false;
  function* waitsForTheSecond(): Query<number> {
    let steps = 0;
    while (!secondAnswered && steps < STEP_BOUND) {
      yield* get('SELECT 1 AS one');
      steps++;
    }
    return steps;
  }
  const first = pool.read(waitsForTheSecond()).then((steps) => {
    answered.push('first');
    return steps;
  });
  const second = pool.read(get<{ n: number }>('SELECT 2 AS n')).then((row) => {
    secondAnswered = true;
    answered.push('second');
    return row;
  });
  const [steps, row] = await Promise.all([first, second]);
  return { answered, steps, second: row };
}

describe('the read pool on one SQLite file', () => {
  it.each([4, 8])('never shows a reader part of a batch, and shows each read the batches committed before it (seed %i)', async (seed) => {
    const { writer, pool } = await opened(2);
    const all = batches(seed);
    const prefixes = all.reduce<number[]>((sums, batch) => [...sums, sums.at(-1)! + batch.length], [0]);
    let writing = true;
    const seen: Snapshot[] = [];
    const reader = async (): Promise<void> => {
      while (writing) seen.push(await pool.read(snapshot()));
    };
    const readers = [reader(), reader()];
    for (const [i, batch] of all.entries()) {
      writer.appendEvents(batch); // on the main thread, while the workers read
      const after = await pool.read(snapshot());
      expect(after.events, `seed ${seed}: a read started after batch ${i} committed`).toBe(prefixes[i + 1]);
      await turn();
    }
    writing = false;
    await Promise.all(readers);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(consistent(s), `seed ${seed}: ${JSON.stringify(s)}`).toBe(true);
      expect(prefixes, `seed ${seed}: ${s.events} events is no whole prefix of batches`).toContain(s.events);
    }
  });

  it('reads one snapshot for a whole query, even when a batch commits between its statements', async () => {
    const { writer, pool } = await opened(2);
    function* straddling(batch: HivewatchEvent[]): Query<[Snapshot, Snapshot, Snapshot]> {
      const before = yield* snapshot();
      writer.appendEvents(batch); // commits between this query's statements
      const inside = yield* snapshot();
      return [before, inside, writer.readPlan(snapshot())];
    }
    for (const batch of batches(11)) {
      const [before, inside, committed] = await pool.read(straddling(batch));
      expect(inside).toEqual(before);
      expect(consistent(before)).toBe(true);
      expect(committed.events).toBe(before.events + batch.length);
      expect(await pool.read(snapshot())).toEqual(committed);
    }
  });

  it('answers two reads at once: the one sent second is answered first while the first keeps its transaction open', async () => {
    const { pool } = await opened(2);
    const { answered, steps, second } = await firstWaitsForSecond(pool);
    expect(second).toEqual({ n: 2 });
    expect(answered).toEqual(['second', 'first']);
    expect(steps).toBeLessThan(STEP_BOUND);
  });

  it('with one worker, the same two reads are answered in the order they were sent (what the test above tells apart)', async () => {
    const { pool } = await opened(1);
    const { answered, steps, second } = await firstWaitsForSecond(pool);
    expect(second).toEqual({ n: 2 });
    expect(answered).toEqual(['first', 'second']);
    expect(steps).toBe(STEP_BOUND);
  });

  it('rejects the read a dying worker was answering as unavailable, and a new worker answers the next one', async () => {
    const log: string[] = [];
    const { pool } = await opened(1, log);
    const [victim] = pool.threadIds();
    function* crashesItsWorker(): Query<number> {
      yield* get('SELECT 1 AS one');
      void pool.crashOne(victim!);
      let steps = 0;
      while (steps < STEP_BOUND) {
        yield* get('SELECT 1 AS one');
        steps++;
      }
      return steps;
    }
    await expect(pool.read(crashesItsWorker())).rejects.toMatchObject({
      name: 'StoreError',
      kind: 'unavailable',
      code: 'SYSTEM_STORE_UNAVAILABLE',
      message: expect.stringContaining('the read worker answering this read stopped'),
    });
    expect(await pool.read(get('SELECT 42 AS n'))).toEqual({ n: 42 });
    expect(pool.size).toBe(1);
    expect(pool.threadIds()).not.toContain(victim);
    expect(log).toEqual([expect.stringContaining('a read worker stopped')]);
  });

  it('reads on the store’s connection once no worker can open the file', async () => {
    const log: string[] = [];
    const { path, writer, pool } = await opened(1, log);
    writer.setSetting('kept.value', 'on the connection');
    // The connection keeps the file it opened; a new worker finds nothing at the path.
    renameSync(path, `${path}.moved`);
    await pool.crashOne(pool.threadIds()[0]!);
    await vi.waitFor(() => (pool.size === 0 ? undefined : waiting('the replacement worker to fail to open the file')), { timeout: 30_000 });
    expect(await pool.read(get("SELECT value FROM settings WHERE key = 'kept.value'"))).toEqual({ value: 'on the connection' });
    expect(log.at(-1)).toContain('could not open');
  });

  it('refuses a step that would write, and a worker refuses a writing statement sent as a read', async () => {
    const { writer, pool } = await opened(1);
    writer.setSetting('kept.value', 'yes');
    await expect(pool.read(run("DELETE FROM settings WHERE key = 'kept.value'"))).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringContaining('a read may not write'),
    });
    await expect(pool.read(all("DELETE FROM settings WHERE key = 'kept.value' RETURNING key"))).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(writer.getSetting('kept.value')).toBe('yes');
  });

  it('throws a failed statement’s error as the connection would, and answers the next read', async () => {
    const { pool } = await opened(1);
    const failed = pool.read(get('SELECT * FROM no_such_table'));
    await expect(failed).rejects.toBeInstanceOf(Database.SqliteError);
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_ERROR', message: 'no such table: no_such_table' });
    expect(await pool.read(get('SELECT 1 AS n'))).toEqual({ n: 1 });
  });

  it('ends every worker when closed: a read in flight and any later one reject as closed', async () => {
    const { pool } = await opened(2);
    expect(pool.threadIds()).toHaveLength(2);
    function* endless(): Query<never> {
      for (;;) yield* get('SELECT 1 AS one');
    }
    const inFlight = expect(pool.read(endless())).rejects.toMatchObject({ kind: 'closed' });
    await pool.close();
    await inFlight;
    await expect(pool.read(get('SELECT 1'))).rejects.toMatchObject({ kind: 'closed', message: 'the store is closed' });
    expect(pool.size).toBe(0);
  });

  const linux = process.platform === 'linux';
  it.skipIf(!linux)(
    skipTitle('opening starts one OS thread per worker, and closing ends them all', linux ? null : 'not Linux: threads are counted in /proc/self/task'),
    async () => {
      const threads = (): number => readdirSync('/proc/self/task').length;
      const path = join(temp('hw-read-pool-'), 'hivewatch.db');
      const writer = openSqliteStore({ path });
      writers.push(writer);
      const before = threads();
      const pool = await SqliteReadPool.open({ path, size: 2, fallback: (query) => writer.readPlan(query) });
      expect(threads()).toBe(before + 2);
      expect(await pool.read(get('SELECT 1 AS n'))).toEqual({ n: 1 });
      await pool.close();
      expect(threads()).toBe(before);
    },
  );

  it('fails to open, with no worker left running, on a file that is not there', async () => {
    const path = join(temp('hw-read-pool-'), 'missing.db');
    const threads = (): number => (linux ? readdirSync('/proc/self/task').length : 0);
    const before = threads();
    await expect(SqliteReadPool.open({ path, size: 2, fallback: () => waiting('no read') })).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining(`the read workers could not open ${path}`),
    });
    expect(threads()).toBe(before);
  });
});
