import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JournalBuilder } from '../../testing/journal-builder.js';
import { inTransaction, postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';
import { PostgresJournalWriter } from './writer.js';

/**
 * A journal batch carries its transaction's COMMIT: BEGIN, every write and
 * COMMIT in one round trip, so a start that waits for its batch waits for one answer of the
 * server, not two. Counted on the connection itself (under the transaction's own wrapper), on a
 * throwaway PostgreSQL cluster; a failing batch still writes nothing and leaves no transaction open.
 */

const bases = new TestDatabases();
const start = Date.UTC(2026, 10, 26, 9, 0);

/** A pool whose clients count every text they send, BEGIN and COMMIT included. */
function countingPool(pool: pg.Pool): { pool: pg.Pool; sent: string[] } {
  const sent: string[] = [];
  const wrap = (client: pg.PoolClient): pg.PoolClient =>
    new Proxy(client, {
      get: (target, property, receiver) => {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (...args: unknown[]) => {
          sent.push(typeof args[0] === 'string' ? args[0] : '?');
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const counting = new Proxy(pool, {
    get: (target, property, receiver) =>
      property === 'connect' ? async () => wrap(await target.connect()) : (Reflect.get(target, property, receiver) as unknown),
  });
  return { pool: counting, sent };
}

describe.skipIf(!postgresBinaries)(skipTitle('a journal batch with its COMMIT on PostgreSQL', postgresMissing), () => {
  beforeAll(() => bases.start(), 120_000);
  afterEach(() => bases.endPools());
  afterAll(() => bases.stop());

  it('sends BEGIN, the batch and COMMIT as one round trip, and the batch is committed', async () => {
    const pool = bases.pool(await bases.fresh('commit_in_batch'));
    const counting = countingPool(pool);
    const writer = new PostgresJournalWriter(testOwner('commit'), () => start);
    const events = new JournalBuilder('run_one', { flow: 'flows/a.prose', start })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete().events;
    const { commitSeqs } = await inTransaction(counting.pool, (client) => writer.append(client, events, undefined, { commit: true }));
    expect(counting.sent).toHaveLength(1);
    expect(counting.sent[0]).toMatch(/^BEGIN;\n[\s\S]*;\nCOMMIT$/);
    expect(commitSeqs).toEqual(events.map((_, i) => i + 1));
    const { rows } = await pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM events');
    expect(Number(rows[0]!.n)).toBe(events.length);
  });

  it('without it, the COMMIT is a round trip of its own (what every other transaction does)', async () => {
    const pool = bases.pool(await bases.fresh('commit_apart'));
    const counting = countingPool(pool);
    const writer = new PostgresJournalWriter(testOwner('apart'), () => start);
    const events = new JournalBuilder('run_two', { flow: 'flows/a.prose', start }).start().events;
    await inTransaction(counting.pool, (client) => writer.append(client, events));
    expect(counting.sent.map((text) => text.split(';\n').at(-1))).toEqual([expect.stringMatching(/^INSERT INTO events/), 'COMMIT']);
  });

  it('a run not in memory is read back in one round trip before its batch (five reads, one answer)', async () => {
    const pool = bases.pool(await bases.fresh('reload_one_trip'));
    const events = new JournalBuilder('run_back', { flow: 'flows/a.prose', start })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }, 'ok'] }])
      .complete().events;
    const hostA = new PostgresJournalWriter(testOwner('a'), () => start);
    await inTransaction(pool, (client) => hostA.append(client, events.slice(0, 4), undefined, { commit: true }));
    // A writer that never saw the run (a restarted host, or one past its cache) goes on with it.
    const counting = countingPool(pool);
    const fresh = new PostgresJournalWriter(testOwner('a'), () => start);
    await inTransaction(counting.pool, (client) => fresh.append(client, events.slice(4), undefined, { commit: true }));
    expect(counting.sent).toHaveLength(2);
    expect(counting.sent[0]!.split(';\n').map((text) => text.split(' WHERE')[0])).toEqual([
      'BEGIN',
      'SELECT * FROM runs',
      'SELECT * FROM steps',
      'SELECT * FROM tasks',
      'SELECT * FROM attempts',
      'SELECT * FROM errors',
    ]);
    expect(counting.sent[1]).toMatch(/;\nCOMMIT$/);
    const { rows } = await pool.query<{ status: string; last: number }>("SELECT status, last_seq AS last FROM runs WHERE id = 'run_back'");
    expect(rows[0]).toEqual({ status: 'completed', last: events.length });
  });

  it('a batch that fails midway writes nothing, and the connection is out of its transaction', async () => {
    const pool = bases.pool(await bases.fresh('commit_fails'), 1);
    const events = new JournalBuilder('run_dup', { flow: 'flows/a.prose', start })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete().events;
    const hostA = new PostgresJournalWriter(testOwner('a'), () => start);
    const hostB = new PostgresJournalWriter(testOwner('b'), () => start);
    await inTransaction(pool, (client) => hostA.append(client, events.slice(0, 2), undefined, { commit: true }));
    await inTransaction(pool, (client) => hostB.append(client, events.slice(2, 3), undefined, { commit: true }));
    // Host A still holds the run at seq 2: its batch passes its checks, and the server refuses
    // it at the events' key, the batch's last statement, after every projection row was written.
    const stale = inTransaction(pool, (client) => hostA.append(client, events.slice(2, 4), undefined, { commit: true }));
    await expect(stale).rejects.toThrow();
    // One connection in the pool: left in its failed transaction, it would refuse every statement.
    const { rows } = await pool.query<{ n: string; last: string }>("SELECT COUNT(*) AS n, MAX(seq) AS last FROM events WHERE run_id = 'run_dup'");
    expect([Number(rows[0]!.n), Number(rows[0]!.last)]).toEqual([3, 3]);
  });
});
