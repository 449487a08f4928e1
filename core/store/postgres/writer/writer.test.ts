import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { seededRandom } from '../../../testing/seeded-random.js';
import { openDatabase } from '../../sqlite/database.js';
import { JournalWriter } from '../../sqlite/journal-writer.js';
import { migrate } from '../../sqlite/migrate.js';
import { isStoreError } from '../../store-error.js';
import { failFast, rethrow, retryLimit } from '../../testing/failure-journals.js';
import { JournalBuilder, randomJournals } from '../../testing/journal-builder.js';
import { bothTables, inTransaction, postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { PostgresJournalWriter } from './writer.js';
import { skipTitle } from '../../../testing/skip.js';

/**
 * Cuts journals into batches the way several runs of one host reach the store: events of
 * different runs interleaved, each run's events in order, batches of random sizes.
 */
function interleave(journals: readonly HivewatchEvent[][], seed: number, maxBatch: number): HivewatchEvent[][] {
  const random = seededRandom(seed);
  const cursors = journals.map(() => 0);
  const open = journals.map((_, i) => i).filter((i) => journals[i]!.length > 0);
  const batches: HivewatchEvent[][] = [];
  let batch: HivewatchEvent[] = [];
  let size = 1 + Math.floor(random() * maxBatch);
  while (open.length > 0) {
    const slot = Math.floor(random() * open.length);
    const run = open[slot]!;
    const take = 1 + Math.floor(random() * 6);
    for (let k = 0; k < take && cursors[run]! < journals[run]!.length; k += 1) batch.push(journals[run]![cursors[run]!++]!);
    if (cursors[run]! >= journals[run]!.length) open.splice(slot, 1);
    if (batch.length >= size) {
      batches.push(batch);
      batch = [];
      size = 1 + Math.floor(random() * maxBatch);
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

const bases = new TestDatabases();
const start = Date.UTC(2026, 0, 1);

describe.skipIf(!postgresBinaries)(skipTitle('PostgresJournalWriter', postgresMissing), () => {
  beforeAll(async () => bases.start());
  afterEach(async () => bases.endPools());
  afterAll(async () => bases.stop());

  it("writes every row exactly as SQLite's JournalWriter does for the same batches (runs reloaded past a 3-run cache)", async () => {
    const pool = bases.pool(await bases.fresh('same_rows'));
    const journals = randomJournals(11, 40, { start, spanMs: 2 * 3_600_000, openShare: 0.2 });
    // A virtual-clock run: its wall times come from the writer's clock, not from its ts.
    journals.push(
      new JournalBuilder('virtual', { clock: 'virtual', start: 5 })
        .start()
        .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }, 'ok'] }])
        .complete().events,
    );
    // Failing runs of both journal shapes: occurrences settled in later batches than they were written in.
    for (const shape of ['legacy', 'chained'] as const) {
      journals.push(
        retryLimit(`limit-${shape}`, shape, { start }).events,
        failFast(`fast-${shape}`, shape, { start }).events,
        rethrow(`rethrow-${shape}`, shape, { start }).events,
      );
    }
    const batches = interleave(journals, 12, 60);
    const owner = testOwner('same');
    let clock = start + 86_400_000;
    const now = (): number => (clock += 7);
    const pgWriter = new PostgresJournalWriter(owner, now, 3);
    const db = openDatabase({ path: ':memory:' });
    migrate(db);
    let sqliteClock = start + 86_400_000;
    const sqliteWriter = new JournalWriter(db, owner, () => (sqliteClock += 7), 3);

    for (const batch of batches) {
      const { walls, commitSeqs } = await inTransaction(pool, (client) => pgWriter.append(client, batch));
      expect(walls).toEqual(sqliteWriter.append(batch));
      expect(commitSeqs).toEqual(sqliteWriter.lastCommittedSeqs());
      expect(pgWriter.cachedRunCount).toBeLessThanOrEqual(3);
    }
    for (const { table, postgres, sqlite } of await bothTables(pool, db)) {
      expect(postgres.length, table).toBeGreaterThan(0);
      expect(postgres, table).toEqual(sqlite);
    }
    db.close();
  });

  it('writes a batch of 1,000 events of new runs in one round trip', async () => {
    const pool = bases.pool(await bases.fresh('statements'));
    const events = randomJournals(5, 80, { start }).flat().slice(0, 1_000);
    expect(events.length).toBe(1_000);
    const writer = new PostgresJournalWriter(testOwner('count'), () => start);
    const statements = await inTransaction(pool, async (client) => {
      let count = 0;
      const counting = new Proxy(client, {
        get: (target, property, receiver) => {
          if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
          return (...args: Parameters<pg.PoolClient['query']>) => {
            count += 1;
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        },
      });
      await writer.append(counting, events);
      return count;
    });
    // Steps, tasks, attempts, errors (and occurrences of earlier batches a run's end settled),
    // checkpoints, 3 rollup grains, 2 trend grains, groups, 3 failure-rollup grains, the recount
    // lock, runs, run hosts claimed and released, the commit positions, the events: all in one
    // round trip (statement-batch.ts), the BEGIN with them (transaction.ts).
    expect(statements).toBe(1);
    const { rows } = await pool.query<{ n: number }>('SELECT COUNT(*)::bigint AS n FROM events');
    expect(rows[0]!.n).toBe(1_000);
  });

  it('rejects a gap and writes nothing, with the message SQLite gives', async () => {
    const pool = bases.pool(await bases.fresh('gap'));
    const events = new JournalBuilder('gap').start().runStep([{ attempts: ['ok'] }]).events;
    const writer = new PostgresJournalWriter(testOwner('gap'), () => start);
    await inTransaction(pool, (client) => writer.append(client, events.slice(0, 2)));
    const skipping = inTransaction(pool, (client) => writer.append(client, events.slice(3)));
    await expect(skipping).rejects.toThrow(`run gap: event seq 4 (${events[3]!.type}) but the journal expects 3`);
    const { rows } = await pool.query<{ n: number; head: number }>('SELECT (SELECT COUNT(*) FROM events) AS n, (SELECT commit_seq FROM journal_head) AS head');
    expect(rows[0]).toEqual({ n: 2, head: 2 });
  });

  it('rejects a seq another host journaled first (the events key), writes nothing, then reloads and goes on', async () => {
    const url = await bases.fresh('duplicate');
    const poolA = bases.pool(url);
    const poolB = bases.pool(url);
    const b = new JournalBuilder('shared').start();
    b.runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }, 'ok'] }]);
    const events = b.events;
    const hostA = new PostgresJournalWriter(testOwner('a'), () => start);
    const hostB = new PostgresJournalWriter(testOwner('b'), () => start);
    await inTransaction(poolB, (client) => hostB.append(client, events.slice(0, 3)));

    // Both hosts write seq 4 at once: A (which loads the run) first, B (which remembers it at seq
    // 3) waits on A's rows, and once A commits, B's batch meets A's seq 4 and fails.
    const clientA = await poolA.connect();
    const clientB = await poolB.connect();
    try {
      await clientA.query('BEGIN');
      await clientB.query('BEGIN');
      await hostA.append(clientA, events.slice(3, 5));
      const second = hostB.append(clientB, events.slice(3, 4)).catch((e: unknown) => e);
      await clientA.query('COMMIT');
      const error = await second;
      expect(isStoreError(error, 'invalid_event')).toBe(true);
      expect((error as Error).message).toBe('run shared: event seq 4 is already in the journal (another host wrote it first)');
      await clientB.query('ROLLBACK');
    } finally {
      clientA.release();
      clientB.release();
    }
    const before = await snapshotOf(poolA);
    expect(before.events).toBe(5);
    expect(before.head).toBe(5);

    // B's state of the run was forgotten: its next batch (after A's) loads the run and goes on.
    await inTransaction(poolB, (client) => hostB.append(client, events.slice(5)));
    // A still remembers the run at seq 5: its stale batch is refused, and nothing is written.
    const stale = inTransaction(poolA, (client) => hostA.append(client, [events[5]!]));
    await expect(stale).rejects.toThrow(`run shared: event seq 6 is already in the journal (another host wrote it first)`);
    const after = await snapshotOf(poolA);
    expect(after).toEqual({ events: events.length, head: events.length, errors: 1, rollup: 1, lastSeq: events.length });
  });

  it('keeps seq gapless, rollups and groups exact and commit positions in commit order with 4 hosts writing at once', async () => {
    const url = await bases.fresh('four_hosts');
    const hosts = [1, 2, 3, 4].map((h) => ({
      pool: bases.pool(url, 2),
      writer: new PostgresJournalWriter(testOwner(`h${h}`), () => start, 4),
      batches: interleave(randomJournals(100 + h, 30, { start, spanMs: 3_600_000 }), h, 40),
    }));
    const total = hosts.reduce((n, h) => n + h.batches.reduce((m, b) => m + b.length, 0), 0);
    const tailPool = bases.pool(url, 1);
    const seen = new Map<string, number>();
    let cursor = 0;
    let gaps = 0;
    let done = false;
    /** Positions the tail had read before the last writer finished: it really read while they wrote. */
    let readDuringWrites = 0;
    const tail = (async () => {
      for (;;) {
        const finished = done;
        const { rows } = await tailPool.query<{ commit_seq: number; run_id: string; seq: number }>(
          'SELECT commit_seq, run_id, seq FROM events WHERE commit_seq > $1 ORDER BY commit_seq LIMIT 500',
          [cursor],
        );
        for (const row of rows) {
          // The cursor only moves over contiguous positions; a hole would be a position not yet
          // visible while a later one is, which commit order rules out.
          if (row.commit_seq !== cursor + 1) {
            gaps += 1;
            break;
          }
          cursor = row.commit_seq;
          const key = `${row.run_id}#${row.seq}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
        if (finished && rows.length === 0) return;
      }
    })();
    await Promise.all(
      hosts.map(async (host) => {
        for (const batch of host.batches) await inTransaction(host.pool, (client) => host.writer.append(client, batch));
      }),
    );
    readDuringWrites = cursor;
    done = true;
    await tail;

    expect(gaps).toBe(0);
    expect(readDuringWrites).toBeGreaterThan(0);
    expect(cursor).toBe(total);
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => (await tailPool.query<R>(sql)).rows;
    expect(await q('SELECT MIN(commit_seq) AS lo, MAX(commit_seq) AS hi, COUNT(*)::bigint AS n FROM events')).toEqual([{ lo: 1, hi: total, n: total }]);
    expect(await q('SELECT commit_seq FROM journal_head')).toEqual([{ commit_seq: total }]);
    // Per run: seq 1..n without a hole, and the run row's last_seq is n.
    expect(
      await q(`SELECT e.run_id FROM events AS e JOIN runs AS r ON r.id = e.run_id
               GROUP BY e.run_id, r.last_seq HAVING MIN(e.seq) <> 1 OR MAX(e.seq) <> COUNT(*) OR MAX(e.seq) <> r.last_seq`),
    ).toEqual([]);
    const [journaled] = await q<{ n: number }>("SELECT COUNT(*)::bigint AS n FROM events WHERE type = 'errorOccurred'");
    expect(journaled!.n).toBeGreaterThan(50);
    for (const table of ['error_rollups', 'error_rollups_hour', 'error_rollups_day', 'error_group_trend_hour', 'error_group_trend_day', 'error_groups']) {
      expect(await q(`SELECT SUM(count) AS n FROM ${table}`), table).toEqual([{ n: journaled!.n }]);
    }
    // Every minute bucket exact, and every group's count, unhandled, first and last seen.
    expect(await q(`SELECT bucket, category, origin, code, flow, disposition, count FROM error_rollups ORDER BY 1, 2, 3, 4, 5, 6`)).toEqual(
      await q(`SELECT ts - (((ts % 60000) + 60000) % 60000) AS bucket, category, origin, code, flow, disposition,
                 COUNT(*)::bigint AS count FROM errors GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`),
    );
    expect(await q('SELECT fingerprint, count, unhandled, first_seen, last_seen FROM error_groups ORDER BY fingerprint')).toEqual(
      await q(`SELECT fingerprint, COUNT(*)::bigint AS count, SUM(CASE WHEN disposition = 'unhandled' THEN 1 ELSE 0 END)::bigint AS unhandled,
                 MIN(ts) AS first_seen, MAX(ts) AS last_seen FROM errors GROUP BY fingerprint ORDER BY fingerprint`),
    );
  });
});

async function snapshotOf(pool: pg.Pool): Promise<{ events: number; head: number; errors: number; rollup: number; lastSeq: number }> {
  const { rows } = await pool.query<{ events: number; head: number; errors: number; rollup: number; last_seq: number }>(
    `SELECT (SELECT COUNT(*) FROM events) AS events, (SELECT commit_seq FROM journal_head) AS head,
       (SELECT COUNT(*) FROM errors) AS errors, (SELECT COALESCE(SUM(count), 0) FROM error_rollups) AS rollup,
       (SELECT last_seq FROM runs WHERE id = 'shared') AS last_seq`,
  );
  const row = rows[0]!;
  return { events: row.events, head: row.head, errors: row.errors, rollup: row.rollup, lastSeq: row.last_seq };
}
