import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions } from './issue-transitions.js';
import type { HivewatchStore } from '../contract.js';
import { openStore } from '../open.js';
import { all } from '../queries/plan.js';
import { testEngines } from '../testing/engines.js';
import { randomJournals } from '../testing/journal-builder.js';
import { IssueBook } from '../../service/issues/book.js';

/**
 * Each issue's events and failures in a period, read from rollups (issue-periods.ts), equal
 * plain `GROUP BY`s over the errors of the same window on every engine, over seeded random
 * histories: windows with partial hours at both edges, whole days, open at either end, with a
 * flow filter and a run filter, after ingest and after a prune. Then the issues list's period,
 * previous period and change (the trend sort's input) equal the same GROUP BYs of both periods.
 * `HIVEWATCH_SEED=n` replays one history; the seed is in every test's name.
 */

const { engines, start, stop } = testEngines('issue-periods', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEED = Number(process.env.HIVEWATCH_SEED ?? 3_222);
const FROM = Date.UTC(2026, 4, 1);
const SPAN = 10 * DAY;
const NOW = FROM + 9 * DAY + 23 * 60_000 + 4_321;

type Counts = Record<string, { events: number; failures: number }>;

/** The plain GROUP BY: every error of the window, by issue. */
async function groupBy(store: HivewatchStore, window: { since?: number; until?: number; flow?: string; runId?: string }): Promise<Counts> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown): void => {
    where.push(sql);
    params.push(value);
  };
  if (window.since !== undefined) add('ts >= ?', window.since);
  if (window.until !== undefined) add('ts < ?', window.until);
  if (window.flow !== undefined) add('flow = ?', window.flow);
  if (window.runId !== undefined) add('run_id = ?', window.runId);
  const rows = await store.runStatements(() =>
    all<{ fingerprint: string; events: number; failures: number }>(
      `SELECT fingerprint, COUNT(*) AS events, SUM(CASE WHEN ending = 1 THEN 1 ELSE 0 END) AS failures FROM errors
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY fingerprint`,
      params,
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.fingerprint, { events: Number(r.events), failures: Number(r.failures) }]));
}

async function fromRollups(store: HivewatchStore, window: { since?: number; until?: number; flow?: string; runId?: string }): Promise<Counts> {
  const counts = await store.issues.windowCounts({
    fingerprints: null,
    since: window.since,
    until: window.until,
    ...(window.flow ? { flow: window.flow } : {}),
    ...(window.runId ? { runId: window.runId } : {}),
  });
  return Object.fromEntries([...counts].map(([fp, c]) => [fp, c]));
}

/** Windows with partial hours at both ends, whole days, a day and a half, open ends. */
const WINDOWS = [
  { since: NOW - 24 * HOUR, until: NOW },
  { since: NOW - 7 * DAY, until: NOW },
  { since: FROM + DAY, until: FROM + 3 * DAY },
  { since: FROM + 36 * HOUR + 17 * 60_000 + 9, until: FROM + 4 * DAY + 5 * HOUR + 59_999 },
  { since: FROM + 2 * DAY + 90_000 },
  { until: FROM + 5 * DAY + 1 },
  {},
];

async function expectWindowsMatch(store: HivewatchStore): Promise<void> {
  const runs = await store.runStatements(() => all<{ run_id: string }>('SELECT run_id FROM errors GROUP BY run_id ORDER BY COUNT(*) DESC, run_id LIMIT 2'));
  for (const window of WINDOWS) {
    for (const extra of [{}, { flow: 'flows/b.prose' }, { runId: runs[0]!.run_id }]) {
      const asked = { ...window, ...extra };
      expect({ asked, counts: await fromRollups(store, asked) }).toEqual({ asked, counts: await groupBy(store, asked) });
    }
  }
}

describe.each(engines)('issue period counts from the rollups on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it(`equal plain GROUP BYs of the errors in every window, after ingest and after prune (seed ${SEED})`, async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    for (const journal of randomJournals(SEED, 160, { start: FROM, spanMs: SPAN })) await store.appendEvents(journal);
    const failures = Object.values(await groupBy(store, {})).reduce((n, c) => n + c.failures, 0);
    expect(failures).toBeGreaterThan(5);
    await expectWindowsMatch(store);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    const report = await store.prune({ olderThanMs: Date.now() - (FROM + 4 * DAY) });
    expect(report.errors).toBeGreaterThan(0);
    await expectWindowsMatch(store);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });

  it(`give the issues list its period, previous period and change, as GROUP BYs of both periods say (seed ${SEED + 1})`, async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    for (const journal of randomJournals(SEED + 1, 160, { start: FROM, spanMs: SPAN })) await store.appendEvents(journal);
    const book = new IssueBook({ store, hub: new IssueTransitions(), host: 'h1', now: () => NOW });
    for (const span of [24 * HOUR, 3 * DAY]) {
      const since = NOW - span;
      const [now, before] = [await groupBy(store, { since, until: NOW }), await groupBy(store, { since: since - span, until: since })];
      const listed = (await book.list({ since, limit: 1_000, sort: 'trend' })).items;
      expect(listed.map((i) => i.id).sort()).toEqual(Object.keys(now).sort());
      for (const issue of listed) {
        const previous = before[issue.id] ?? { events: 0, failures: 0 };
        const current = now[issue.id] as { events: number; failures: number };
        expect(issue.period).toEqual({
          since,
          until: NOW,
          ...current,
          previous: { since: since - span, until: since, ...previous },
          change: previous.events === 0 ? null : (current.events - previous.events) / previous.events,
        });
      }
      // Sorted by trend: the growth (events + 1) / (previous + 1), largest first.
      const growth = listed.map((i) => (i.period.events + 1) / ((i.period.previous?.events ?? 0) + 1));
      expect(growth).toEqual([...growth].sort((a, b) => b - a));
    }
  });
});
