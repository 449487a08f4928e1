import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { createDurableSink } from '../../sink/sink.js';
import { JournalBuilder } from '../../testing/journal-builder.js';
import { createPostgresClient, createPostgresPool, postgresConfig } from '../connection/connection.js';
import { openPostgresStore } from '../store.js';
import { PostgresStore } from '../postgres-store.js';
import { postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';

if (!postgresBinaries) console.warn(`in-doubt commit suite skipped: ${postgresMissing}`);

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});

/**
 * A pool over the real server whose first COMMIT commits and then reports the connection lost,
 * as when the server dies between writing the commit and answering it (`pg_ctl restart -m
 * immediate` mid-write). A double that misbehaves on purpose: the data is real.
 */
function lyingPool(pool: pg.Pool): { pool: pg.Pool; lies: () => number } {
  let lies = 0;
  const forward = <T extends object>(target: T, override: (key: string | symbol) => unknown): T =>
    new Proxy(target, {
      get(object, key) {
        const replaced = override(key);
        if (replaced !== undefined) return replaced;
        const value = Reflect.get(object, key, object) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
      },
    });
  const lying = forward(pool, (key) =>
    key !== 'connect'
      ? undefined
      : async () => {
          const client = await pool.connect();
          return forward(client, (clientKey) =>
            clientKey !== 'query'
              ? undefined
              : async (...args: unknown[]) => {
                  const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
                  // The COMMIT alone, or at the end of a journal batch's text (transaction.ts WITH_COMMIT).
                  if (typeof args[0] === 'string' && /(^|;\n)COMMIT$/.test(args[0]) && lies === 0) {
                    lies += 1;
                    throw new Error('Connection terminated unexpectedly');
                  }
                  return result;
                },
          );
        },
  );
  return { pool: lying, lies: () => lies };
}

describe.skipIf(!postgresBinaries)(skipTitle('a COMMIT whose outcome the host could not see', postgresMissing), () => {
  it('is found committed when the sink writes the batch again: nothing twice, nothing refused, listeners told once', async () => {
    const url = await databases.fresh('in_doubt');
    const config = postgresConfig(url, {});
    const real = createPostgresPool(config, { max: 2 });
    const { pool, lies } = lyingPool(real);
    const owner = { ...testOwner('doubt'), machine: null, startTime: null };
    const store = new PostgresStore(
      pool,
      'in-doubt-test',
      false,
      owner,
      Date.now,
      (error) => {
        throw error;
      },
      () => undefined,
      () => createPostgresClient(config),
      {},
    );
    await store.start(false);
    try {
      const told: number[] = [];
      store.subscribe((_events, _walls, positions) => told.push(...positions));
      const run = new JournalBuilder('doubt')
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete();
      const sink = createDurableSink(store, { retryDelaysMs: [0, 0], sleep: () => Promise.resolve() });
      const own = sink.forRun();
      for (const event of run.events) own.append(event);
      await own.flush();
      expect(lies()).toBe(1);
      expect(await store.getEvents('doubt')).toEqual(run.events);
      expect(told).toEqual(run.events.map((_, i) => i + 1));
      expect((await store.getRunRow('doubt'))?.status).toBe('completed');

      // Another host with the same events at those seqs had nothing in doubt: still refused.
      const other = await openPostgresStore({ url });
      try {
        await expect(other.appendEvents(run.events.slice(0, 1) as HivewatchEvent[])).rejects.toThrow(
          'run doubt: event seq 1 is already in the journal (another host wrote it first)',
        );
      } finally {
        await other.close();
      }
    } finally {
      await store.close();
    }
  });
});
