import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inlineStatement, quoteText, StatementBatch } from './statement-batch.js';
import { assertProperty } from '../../../testing/property.js';
import { inTransaction, postgresBinaries, postgresMissing, TestDatabases } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';

/** Values a journal batch carries, at their most awkward: quotes, backslashes, `$1` inside text, non-BMP text, JSON. */
const AWKWARD = ["it's", 'back\\slash \\x00 and \\\\', 'holds $1 and $2', '😀 ünïcode', '{"a": "\\"quoted\\""}', '', ' leading space'];

describe('quoteText', () => {
  it('writes the same literal as pg.escapeLiteral for any text', async () => {
    const awkward = fc.constantFrom("'", '\\', '"', '$1', 'E', ' ', '😀', 'x');
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.array(awkward).map((parts) => parts.join('')),
    );
    await assertProperty(
      fc.property(text, (value) => {
        expect(quoteText(value)).toBe(pg.escapeLiteral(value));
      }),
      { seed: 35003, numRuns: 2_000 },
    );
  });

  it('doubles quotes, and doubles backslashes behind an E prefix', () => {
    expect(quoteText("it's")).toBe("'it''s'");
    expect(quoteText("a\\'b")).toBe(" E'a\\\\''b'");
    expect(quoteText('')).toBe("''");
  });
});

describe('inlineStatement', () => {
  it('replaces each placeholder by its own value, $10 not read as $1 then 0', () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineStatement('SELECT $1, $10, $2', params)).toBe("SELECT 'v1', 'v10', 'v2'");
  });

  it('leaves a $ that no digit follows as it is', () => {
    expect(inlineStatement('SELECT $a, $, $1$', ['x'])).toBe("SELECT $a, $, 'x'$");
  });

  it('quotes numbers and booleans as node-postgres sends them (text of unknown type), NULL for null', () => {
    expect(inlineStatement('VALUES ($1, $2, $3, $4)', [42, -1.5, true, null])).toBe("VALUES ('42', '-1.5', 'true', NULL)");
  });

  it('writes an array as node-postgres does, its elements quoted and escaped', () => {
    expect(inlineStatement('SELECT $1::text[]', [['a', 'b"c', 'd\\e', null]])).toBe(`SELECT  E'{"a","b\\\\"c","d\\\\\\\\e",NULL}'::text[]`);
  });

  it('has no literal for a NUL byte or a non-scalar value: the batch then goes out with parameters', () => {
    expect(inlineStatement('SELECT $1', ['a\u0000b'])).toBeNull();
    expect(inlineStatement('SELECT $1', [[{ a: 1 }]])).toBeNull();
    expect(inlineStatement('SELECT $1', [{ a: 1 }])).toBeNull();
  });
});

const bases = new TestDatabases();

describe.skipIf(!postgresBinaries)(skipTitle('StatementBatch on PostgreSQL', postgresMissing), () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    await bases.start();
  });
  afterEach(async () => bases.endPools());
  afterAll(async () => bases.stop());

  /** Runs `fill` into a batch sent in one transaction on a client that counts its round trips. */
  async function sendCounting(fill: (batch: StatementBatch) => void): Promise<{ answers: pg.QueryResult[]; roundTrips: number }> {
    return inTransaction(pool, async (client) => {
      let roundTrips = 0;
      const counting = { query: (...args: unknown[]) => ((roundTrips += 1), (client.query as (...a: unknown[]) => Promise<unknown>)(...args)) };
      const batch = new StatementBatch();
      fill(batch);
      const answers = await batch.send(counting as unknown as pg.PoolClient);
      return { answers, roundTrips };
    });
  }

  it('stores every awkward value exactly as parameters do, in one round trip, each statement answered', async () => {
    pool = bases.pool(await bases.fresh('batch_values'));
    await pool.query('CREATE TABLE t (k integer PRIMARY KEY, s text, n bigint, f boolean, j jsonb)');
    const rows = AWKWARD.map((s, i) => [i, s, 2 ** 40 + i, i % 2 === 0, JSON.stringify({ s })]);
    const { answers, roundTrips } = await sendCounting((batch) => {
      for (const row of rows) void batch.collector.query('INSERT INTO t (k, s, n, f, j) VALUES ($1, $2, $3, $4, $5)', row);
      void batch.collector.query('SELECT COUNT(*)::int AS c FROM t');
    });
    expect(roundTrips).toBe(1);
    expect(answers).toHaveLength(rows.length + 1);
    expect(answers[rows.length]!.rows).toEqual([{ c: rows.length }]);
    await pool.query('CREATE TABLE p (k integer PRIMARY KEY, s text, n bigint, f boolean, j jsonb)');
    for (const row of rows) await pool.query('INSERT INTO p (k, s, n, f, j) VALUES ($1, $2, $3, $4, $5)', row);
    const batched = await pool.query('SELECT k, s, n::text, f, j FROM t ORDER BY k');
    const parameterized = await pool.query('SELECT k, s, n::text, f, j FROM p ORDER BY k');
    expect(batched.rows).toEqual(parameterized.rows);
    expect(batched.rows.map((r: { s: string }) => r.s)).toEqual(AWKWARD);
    const {
      answers: [deleted],
    } = await sendCounting((batch) => void batch.collector.query('DELETE FROM t WHERE s = ANY($1::text[]) RETURNING k', [AWKWARD.slice(0, 5)]));
    expect(deleted!.rows.map((r: { k: number }) => r.k).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('sends a batch holding a NUL byte one statement at a time, so the server refuses it as it always did', async () => {
    pool = bases.pool(await bases.fresh('batch_nul'));
    await pool.query('CREATE TABLE t (k integer PRIMARY KEY, s text)');
    const sent = sendCounting((batch) => {
      void batch.collector.query('INSERT INTO t (k, s) VALUES ($1, $2)', [1, 'fine']);
      void batch.collector.query('INSERT INTO t (k, s) VALUES ($1, $2)', [2, 'not\u0000fine']);
    });
    await expect(sent).rejects.toThrow(/0x00/);
    expect((await pool.query('SELECT COUNT(*)::int AS c FROM t')).rows).toEqual([{ c: 0 }]);
  });

  it('stops at a failing statement and the transaction writes nothing', async () => {
    pool = bases.pool(await bases.fresh('batch_fail'));
    await pool.query('CREATE TABLE t (k integer PRIMARY KEY)');
    const sent = sendCounting((batch) => {
      void batch.collector.query('INSERT INTO t (k) VALUES ($1)', [1]);
      void batch.collector.query('INSERT INTO t (k) VALUES ($1)', [1]);
      void batch.collector.query('INSERT INTO t (k) VALUES ($1)', [2]);
    });
    await expect(sent).rejects.toMatchObject({ code: '23505' });
    expect((await pool.query('SELECT COUNT(*)::int AS c FROM t')).rows).toEqual([{ c: 0 }]);
  });
});
