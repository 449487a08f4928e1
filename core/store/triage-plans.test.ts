import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from './sqlite/types.js';
import { openSqliteStore } from './sqlite/store.js';
import { openStore } from './open.js';
import { numberPlaceholders } from './postgres/connection/placeholders.js';
import { postgresBinaries, postgresMissing, TestDatabases } from './testing/test-databases.js';
import { Dialect, type Query, type SqlStep } from './queries/plan.js';
import { listRuns } from './queries/runs.js';
import { flowHealth } from './outcomes/flow-health.js';
import { JournalBuilder, randomJournals, type ErrorSpec } from './testing/journal-builder.js';
import { skipTitle } from '../testing/skip.js';

/**
 * The triage reads that once scanned at a million runs go through the index that fits on both
 * engines: flow health's partial edge hours range-scan `runs_ended_wall` (not every completed run
 * through `runs_status`), and an issue's runs are found through its `error_group_runs` rows.
 */

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const WINDOW = { since: T0 + 5 * HOUR + 1_234, until: T0 + 30 * HOUR + 5_678 };

type Issues = { common: string; rare: string };
type Read = { name: string; query: (d: Dialect, issues: Issues) => Query<unknown>; sqlite: RegExp[]; postgres: RegExp[]; scans: RegExp };

const READS: Read[] = [
  {
    // Its edges, and the runs waiting for approval now (the partial index, not every run by flow).
    name: 'flow health',
    query: (d) => flowHealth(d, WINDOW),
    sqlite: [/SEARCH r USING COVERING INDEX runs_ended_wall \(ended_wall>\? AND ended_wall<\?\)/, /SEARCH runs USING INDEX runs_approval_since/],
    postgres: [/Index Only Scan using runs_ended_wall on runs r|Index Cond: \(\(ended_wall >= /, /runs_approval_since/],
    scans: /runs_status|SCAN runs\b/,
  },
  {
    // The Flows screen's window has a start and no end: without the hint SQLite walked every run
    // through runs_flow to group the few that waited on a person.
    name: 'flow health, open window',
    query: (d) => flowHealth(d, { since: WINDOW.since }),
    sqlite: [/SEARCH runs USING INDEX runs_approval_waited \(ended_wall>\?\)/, /SEARCH runs USING INDEX runs_approval_since/],
    postgres: [/runs_approval_waited/, /runs_approval_since/],
    scans: /runs_status|SCAN runs\b/,
  },
  {
    // An issue on most runs: the newest runs are walked, each probed in the issue's runs.
    name: 'runs of a common issue',
    query: (d, issues) => listRuns(d, { issue: issues.common, limit: 20 }),
    sqlite: [/SCAN runs USING INDEX runs_started/, /SEARCH g (EXISTS )?USING PRIMARY KEY \(fingerprint=\? AND run_id=\?\)/],
    postgres: [/Index Scan Backward using runs_started on runs/, /error_group_runs_pkey/],
    scans: /TEMP B-TREE FOR ORDER BY|SCAN runs\b(?! USING)|Seq Scan on runs\b/,
  },
  {
    // An issue on a few runs: its runs, found by id, then sorted.
    name: 'runs of a rare issue',
    query: (d, issues) => listRuns(d, { issue: issues.rare, limit: 20 }),
    sqlite: [/SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(id=\?\)/, /SEARCH g USING PRIMARY KEY \(fingerprint=\?\)/],
    postgres: [/error_group_runs_pkey/],
    scans: /SCAN runs\b(?! USING)|Seq Scan on runs\b/,
  },
];

/** Runs that each met one timeout and went on: with the random history, an issue on most runs. */
function timedOutRuns(count: number): ReturnType<typeof randomJournals> {
  const timeout: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 30000ms' };
  return Array.from(
    { length: count },
    (_, i) =>
      new JournalBuilder(`timed-out-${i}`, { flow: 'flows/a.prose', flowName: 'a', start: T0 + i * 60_000 })
        .start()
        .runStep([{ attempts: [timeout, 'ok'] }])
        .complete().events,
  );
}

function statementsOf(query: Query<unknown>, answer: (step: SqlStep) => unknown): SqlStep[] {
  const steps: SqlStep[] = [];
  let step = query.next();
  while (!step.done) {
    steps.push(step.value);
    step = query.next(answer(step.value));
  }
  return steps;
}

describe('the triage reads use indexes on SQLite', () => {
  let store: SqliteStore;
  let issues: Issues = { common: '', rare: '' };
  beforeAll(() => {
    store = openSqliteStore({ path: ':memory:' });
    for (const journal of [...randomJournals(3, 200, { start: T0 }), ...timedOutRuns(400)]) store.appendEvents(journal);
    // No ANALYZE: the store never runs it, so the planner decides without statistics as in use.
    const ranked = store.database.prepare('SELECT fingerprint FROM error_group_stats ORDER BY runs DESC, fingerprint').all() as { fingerprint: string }[];
    issues = { common: ranked[0]!.fingerprint, rare: ranked.at(-1)!.fingerprint };
  });
  afterAll(() => store.close());

  it.each(READS)('$name', ({ query, sqlite, scans }) => {
    const db = store.database;
    const answer = (s: SqlStep): unknown => {
      const statement = db.prepare(s.sql);
      return s.mode === 'all' ? statement.all(...s.params) : s.mode === 'get' ? statement.get(...s.params) : statement.run(...s.params);
    };
    const plans = statementsOf(query(Dialect.sqlite, issues), answer).map((s) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).all(...s.params) as { detail: string }[]).map((p) => p.detail).join('\n'),
    );
    const plan = plans.join('\n');
    for (const pattern of sqlite) expect(plan).toMatch(pattern);
    expect(plan).not.toMatch(scans);
  });
});

// Skipped, with the reason in its title, only where no PostgreSQL server is installed (CI installs one).
describe.skipIf(!postgresBinaries)(skipTitle('the triage reads use indexes on PostgreSQL', postgresMissing), () => {
  const databases = new TestDatabases();
  let client: pg.Client;
  let issues: Issues = { common: '', rare: '' };
  beforeAll(async () => {
    await databases.start();
    const url = await databases.fresh('triage_plans');
    const store = await openStore({ path: url });
    for (const journal of [...randomJournals(3, 200, { start: T0 }), ...timedOutRuns(400)]) await store.appendEvents(journal);
    await store.close();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('ANALYZE');
    // With a few hundred rows a sequential scan is cheaper; forbidding it shows an index serves the read.
    await client.query('SET enable_seqscan = off');
    const { rows } = await client.query<{ fingerprint: string }>('SELECT fingerprint FROM error_group_stats ORDER BY runs DESC, fingerprint');
    issues = { common: rows[0]!.fingerprint, rare: rows.at(-1)!.fingerprint };
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await databases.stop();
  });

  it.each(READS)('$name', async ({ query, postgres, scans }) => {
    const steps: SqlStep[] = [];
    const q = query(Dialect.postgres, issues);
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
    for (const pattern of postgres) expect(plan).toMatch(pattern);
    expect(plan).not.toMatch(scans);
  });
});
