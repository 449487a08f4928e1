import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, run, runAsync } from '../../queries/plan.js';
import { executorOf, inSnapshot, SNAPSHOT_BEGIN } from './execution.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';

const bases = new TestDatabases();

/** Every statement the pool's clients are sent, in order. */
function recordStatements(pool: pg.Pool): string[] {
  const sent: string[] = [];
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return query(...args);
    };
  });
  return sent;
}

describe.skipIf(!postgresBinaries)(skipTitle('reads in one snapshot on PostgreSQL', postgresMissing), () => {
  beforeAll(async () => bases.start());
  afterAll(async () => bases.stop());

  it('opens the read-only REPEATABLE READ transaction with its BEGIN, sent with a read that has no parameters: two round trips for a one-statement read', async () => {
    const pool = bases.pool(await bases.fresh('snapshot'));
    const sent = recordStatements(pool);
    const modes = await inSnapshot(
      pool,
      get<{ isolation: string; readonly: string }>(
        "SELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS readonly",
      ),
    );
    expect(modes).toEqual({ isolation: 'repeatable read', readonly: 'on' });
    expect(sent).toEqual([
      `${SNAPSHOT_BEGIN};\nSELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS readonly`,
      'COMMIT',
    ]);
  });

  it('refuses a write inside a snapshot and rolls it back', async () => {
    const pool = bases.pool(await bases.fresh('snapshot'));
    await expect(inSnapshot(pool, run("INSERT INTO settings (key, value) VALUES ('probe', '1')"))).rejects.toThrow(
      'cannot execute INSERT in a read-only transaction',
    );
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM settings WHERE key = 'probe'");
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('numbers only the real placeholders: a ? in a literal, an identifier, a dollar quote or a comment stays text on the server', async () => {
    const pool = bases.pool(await bases.fresh('placeholders'));
    // Parameters that look like SQL and like placeholders must come back as they were sent.
    const params = ["'; DROP TABLE runs; --", '$1', '?'];
    const row = await runAsync(
      executorOf(pool),
      get<Record<string, string>>(
        `SELECT '?' AS literal, 'it''s ?' AS doubled, $q$ ? $q$ AS dollar, ? AS first, -- a comment ? here
           ? AS second, /* and ? here */ ? AS third, 1 AS "what?"`,
        params,
      ),
    );
    expect(row).toEqual({ literal: '?', doubled: "it's ?", dollar: ' ? ', first: params[0], second: '$1', third: '?', 'what?': 1 });
    const tables = await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'runs'");
    expect(tables.rows).toEqual([{ n: 1 }]);
  });
});
