import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from './sqlite/types.js';
import { openSqliteStore } from './sqlite/store.js';
import { openStore } from './open.js';
import { numberPlaceholders } from './postgres/connection/placeholders.js';
import { postgresBinaries, postgresMissing, TestDatabases } from './testing/test-databases.js';
import { failureCounts } from './queries/failures.js';
import { Dialect, type Query, type SqlStep } from './queries/plan.js';
import { listRuns } from './queries/runs.js';
import { countRuns } from './queries/run-counts.js';
import { randomJournals } from './testing/journal-builder.js';
import { skipTitle } from '../testing/skip.js';

/**
 * The failure model's reads go through indexes on both engines: the run list's ending-error
 * filters (runs_ending_code / _root_code / _category), its any-occurrence filters (the errors'
 * fingerprint index, reached through the groups), and the failure counts' edges
 * (runs_failed_ended) next to the failure rollups' primary keys.
 */

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const WINDOW = { since: T0 + 5 * HOUR + 1_234, until: T0 + 30 * HOUR + 5_678 };

/** A read, and the indexes its plan names (SQLite's EXPLAIN QUERY PLAN and PostgreSQL's EXPLAIN word them apart). */
type Read = { name: string; query: (d: Dialect) => Query<unknown>; uses: string[]; sqliteKey?: string; postgresKey?: string };

const READS: Read[] = [
  { name: 'code', query: (d) => listRuns(d, { code: 'RUNTIME_TIMEOUT' }), uses: ['runs_ending_code', 'runs_ending_root_code'] },
  { name: 'code (counts)', query: (d) => countRuns(d, { code: 'RUNTIME_TIMEOUT' }), uses: ['runs_ending_code', 'runs_ending_root_code'] },
  { name: 'category', query: (d) => listRuns(d, { category: 'runtime' }), uses: ['runs_ending_category'] },
  { name: 'anyCode', query: (d) => listRuns(d, { anyCode: 'RUNTIME_TIMEOUT' }), uses: ['errors_fingerprint'] },
  { name: 'anyCategory', query: (d) => listRuns(d, { anyCategory: 'agent', sort: '-ended' }), uses: ['errors_fingerprint'] },
  {
    name: 'failureCounts',
    query: (d) => failureCounts(d, { by: 'code', ...WINDOW }),
    uses: ['runs_failed_ended'],
    sqliteKey: 'failure_rollups_hour USING PRIMARY KEY',
    postgresKey: 'failure_rollups_hour_pkey',
  },
];

/** The statements a query asks, each answered by `answer`. */
function statementsOf(query: Query<unknown>, answer: (step: SqlStep) => unknown): SqlStep[] {
  const steps: SqlStep[] = [];
  let step = query.next();
  while (!step.done) {
    steps.push(step.value);
    step = query.next(answer(step.value));
  }
  return steps;
}

describe('the failure model’s reads use indexes on SQLite', () => {
  let store: SqliteStore;
  beforeAll(() => {
    store = openSqliteStore({ path: ':memory:' });
    for (const journal of randomJournals(3, 200, { start: T0 })) store.appendEvents(journal);
    store.database.exec('ANALYZE');
  });
  afterAll(() => store.close());

  it.each(READS)('$name', ({ query, uses, sqliteKey }) => {
    const db = store.database;
    const answer = (s: SqlStep): unknown => {
      const statement = db.prepare(s.sql);
      return s.mode === 'all' ? statement.all(...s.params) : s.mode === 'get' ? statement.get(...s.params) : statement.run(...s.params);
    };
    const plans = statementsOf(query(Dialect.sqlite), answer).map((s) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).all(...s.params) as { detail: string }[]).map((p) => p.detail).join('\n'),
    );
    const plan = plans.join('\n');
    for (const index of [...uses, ...(sqliteKey ? [sqliteKey] : [])]) expect(plan).toContain(index);
    // Never a scan of the big tables (a scan of error_groups, a small table, is fine).
    expect(plan).not.toMatch(/SCAN (runs|errors|e)\b(?! USING)/);
  });
});

if (!postgresBinaries) console.warn(`PostgreSQL plan checks skipped: ${postgresMissing}`);

describe.skipIf(!postgresBinaries)(skipTitle('the failure model’s reads can use indexes on PostgreSQL', postgresMissing), () => {
  const databases = new TestDatabases();
  let client: pg.Client;
  beforeAll(async () => {
    await databases.start();
    const url = await databases.fresh('plans');
    const store = await openStore({ path: url });
    for (const journal of randomJournals(3, 200, { start: T0 })) await store.appendEvents(journal);
    await store.close();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('ANALYZE');
    // With a few hundred rows a sequential scan is cheaper; forbidding it shows an index serves the read.
    await client.query('SET enable_seqscan = off');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await databases.stop();
  });

  it.each(READS)('$name', async ({ query, uses, postgresKey }) => {
    const steps: SqlStep[] = [];
    const q = query(Dialect.postgres);
    let step = q.next();
    while (!step.done) {
      steps.push(step.value);
      const result = await client.query(numberPlaceholders(step.value.sql), [...step.value.params]);
      step = q.next(step.value.mode === 'all' ? result.rows : step.value.mode === 'get' ? result.rows[0] : { changes: result.rowCount ?? 0 });
    }
    const plans: string[] = [];
    for (const s of steps) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${numberPlaceholders(s.sql)}`, [...s.params]);
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    const plan = plans.join('\n');
    for (const index of [...uses, ...(postgresKey ? [postgresKey] : [])]) expect(plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan on (runs|errors)\b/);
  });
});
