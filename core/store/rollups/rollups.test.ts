import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../index.js';
import {
  addErrorContribution,
  BatchRollups,
  ceilTo,
  DAY,
  emptyGrainDeltas,
  floorTo,
  GRAINS,
  HOUR,
  MINUTE,
  parseGroupTrendKey,
  parseRollupKey,
  planWindow,
  ROLLUP_DIMENSIONS,
  TIME_MAX,
  TIME_MIN,
} from './rollups.js';
import { prng, randomJournals } from '../testing/journal-builder.js';

let store: SqliteStore | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

const START = Date.UTC(2026, 0, 1);

/** What the rollups must equal: a plain COUNT(*) over the errors table. */
function directCounts(s: SqliteStore, dim: string, since?: number, until?: number, filter?: [string, string]): Record<string, number> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown): void => {
    where.push(sql);
    params.push(value);
  };
  if (since !== undefined) add('ts >= ?', since);
  if (until !== undefined) add('ts < ?', until);
  if (filter) add(`${filter[0]} = ?`, filter[1]);
  const rows = s.database
    .prepare(`SELECT ${dim} AS k, COUNT(*) AS n FROM errors ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY ${dim}`)
    .all(...params) as { k: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

function storeCounts(
  s: SqliteStore,
  dim: (typeof ROLLUP_DIMENSIONS)[number],
  since?: number,
  until?: number,
  filter?: [string, string],
): Record<string, number> {
  const filters = filter ? { [filter[0]]: filter[1] } : {};
  return Object.fromEntries(
    s
      .errorCounts({ by: dim, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}), ...filters, limit: 10_000 })
      .map((c) => [c.key, c.count]),
  );
}

function randomWindow(random: () => number): [number | undefined, number | undefined] {
  const span = 4 * DAY;
  const a = START - HOUR + Math.floor(random() * span);
  const b = a + Math.floor(random() * (random() < 0.5 ? 3 * HOUR : 3 * DAY));
  const kind = random();
  if (kind < 0.1) return [undefined, undefined];
  if (kind < 0.2) return [a, undefined];
  if (kind < 0.3) return [undefined, b];
  if (kind < 0.4) return [floorTo(a, HOUR), ceilTo(b, DAY)];
  return [a, b];
}

function checkAgainstDirect(s: SqliteStore, random: () => number, windows: number): void {
  for (let w = 0; w < windows; w += 1) {
    const [since, until] = randomWindow(random);
    for (const dim of ROLLUP_DIMENSIONS) {
      const label = `${dim} [${since}, ${until})`;
      expect(storeCounts(s, dim, since, until), label).toEqual(directCounts(s, dim, since, until));
    }
    const filterDim = ROLLUP_DIMENSIONS[Math.floor(random() * ROLLUP_DIMENSIONS.length)]!;
    const values = Object.keys(directCounts(s, filterDim));
    if (values.length > 0) {
      const filter: [string, string] = [filterDim, values[Math.floor(random() * values.length)]!];
      expect(storeCounts(s, 'category', since, until, filter)).toEqual(directCounts(s, 'category', since, until, filter));
    }
  }
}

describe('planWindow', () => {
  it('covers [since, until) exactly once with whole buckets and sub-minute edges', () => {
    const random = prng(7);
    for (let i = 0; i < 2_000; i += 1) {
      const since = START + Math.floor(random() * 5 * DAY) - DAY;
      const until = since + Math.floor(random() * (random() < 0.3 ? 2 * MINUTE : 6 * DAY));
      const plan = planWindow(since, until);
      const pieces = [
        ...plan.ranges.map((r) => ({ from: r.from, to: r.to, size: r.grain === 'minute' ? MINUTE : r.grain === 'hour' ? HOUR : DAY })),
        ...plan.edges.map((e) => ({ ...e, size: 1 })),
      ]
        .filter((p) => p.to > p.from)
        .sort((x, y) => x.from - y.from);
      let at = since;
      for (const p of pieces) {
        expect(p.from).toBe(at);
        expect(p.from % p.size).toBe(0);
        expect(p.to % p.size).toBe(0);
        at = p.to;
      }
      expect(at).toBe(until > since ? until : since);
      for (const e of plan.edges) expect(e.to - e.from).toBeLessThan(MINUTE);
    }
  });

  it('reads at most ~2×60 minute and ~2×24 hour buckets for any window', () => {
    const plan = planWindow(START + 123_456, START + 30 * DAY + 7_654_321);
    const minutes = plan.ranges.filter((r) => r.grain === 'minute').reduce((n, r) => n + (r.to - r.from) / MINUTE, 0);
    const hours = plan.ranges.filter((r) => r.grain === 'hour').reduce((n, r) => n + (r.to - r.from) / HOUR, 0);
    expect(minutes).toBeLessThanOrEqual(118);
    expect(hours).toBeLessThanOrEqual(46);
    expect(planWindow(undefined, undefined).ranges.find((r) => r.grain === 'day')).toMatchObject({ from: TIME_MIN, to: TIME_MAX });
  });
});

describe('rollups equal COUNT(*) over the errors table (property)', () => {
  for (const seed of [11, 23, 57, 101]) {
    it(`seed ${seed}: every dimension, random windows and filters, before and after prune`, () => {
      let clock = START + 5 * DAY;
      store = openSqliteStore({ path: ':memory:', now: () => clock });
      const random = prng(seed);
      const journals = randomJournals(seed, 60, { start: START, spanMs: 3 * DAY });
      // Interleave batches of random size across runs.
      const queues = journals.map((j) => [...j]);
      let events = 0;
      while (queues.some((q) => q.length > 0)) {
        const live = queues.filter((q) => q.length > 0);
        const q = live[Math.floor(random() * live.length)]!;
        const batch = q.splice(0, 1 + Math.floor(random() * 15));
        events += batch.length;
        store.appendEvents(batch);
      }
      expect(events).toBeGreaterThan(500);
      const errors = (store.database.prepare('SELECT COUNT(*) AS n FROM errors').get() as { n: number }).n;
      expect(errors).toBeGreaterThan(100);
      checkAgainstDirect(store, random, 25);
      expect(store.verifyAggregates().diffs).toEqual([]);

      clock = START + 3 * DAY + 12 * HOUR;
      const report = store.prune({ olderThanMs: DAY + Math.floor(random() * DAY) });
      expect(report.runs).toBeGreaterThan(0);
      expect(report.runs).toBeLessThan(journals.length);
      checkAgainstDirect(store, random, 15);
      expect(store.verifyAggregates().diffs).toEqual([]);
      const groups = store.errorGroups({ limit: 1_000 });
      expect(groups.reduce((n, g) => n + g.count, 0)).toBe(errors - report.errors);
    });
  }
});

describe('errorSeries', () => {
  it('stacks counts per bucket, dense, from the rollups of the grain', () => {
    store = openSqliteStore({ path: ':memory:' });
    for (const j of randomJournals(5, 30, { start: START, spanMs: DAY })) store.appendEvents(j);
    for (const bucket of ['minute', 'hour', 'day'] as const) {
      const since = START + 17 * MINUTE + 5_000;
      const until = START + DAY + 3 * HOUR;
      const series = store.errorSeries({ bucket, stackBy: 'category', since, until });
      const size = bucket === 'minute' ? MINUTE : bucket === 'hour' ? HOUR : DAY;
      expect(series.buckets[0]).toBe(floorTo(since, size));
      expect(series.buckets.length).toBe(Math.ceil((until - floorTo(since, size)) / size));
      for (const s of series.series) expect(s.counts).toHaveLength(series.buckets.length);
      // Whole buckets: the same as a direct count over [floor(since), until) rounded to buckets.
      const direct = directCounts(store, 'category', floorTo(since, size), ceilTo(until, size));
      expect(Object.fromEntries(series.series.map((s) => [s.key, s.total]))).toEqual(direct);
    }
    expect(() => store!.errorSeries({ bucket: 'minute', stackBy: 'category', since: START, until: START + 30 * DAY })).toThrow(/at most/);
  });
});

describe('errorCounts reads the rollups', () => {
  it('answers category / origin / code / flow from the rollup tables, touching errors only through the ts index', () => {
    store = openSqliteStore({ path: ':memory:' });
    for (const j of randomJournals(77, 20, { start: START, spanMs: 2 * DAY })) store.appendEvents(j);
    const before = store.errorCounts({ by: 'category' });
    // Inflate one day bucket: an all-time count must move by exactly that much.
    const row = store.database.prepare('SELECT * FROM error_rollups_day LIMIT 1').get() as {
      bucket: number;
      category: string;
      origin: string;
      code: string;
      flow: string;
    };
    store.database
      .prepare('UPDATE error_rollups_day SET count = count + 1000 WHERE bucket = ? AND category = ? AND origin = ? AND code = ? AND flow = ?')
      .run(row.bucket, row.category, row.origin, row.code, row.flow);
    const after = store.errorCounts({ by: 'category' });
    const of = (list: typeof before, key: string): number => list.find((c) => c.key === key)?.count ?? 0;
    expect(of(after, row.category) - of(before, row.category)).toBe(1000);

    // The plan: rollup tables by their primary key, errors only by the ts index (edges).
    const statements = store.database.prepare("SELECT sql FROM sqlite_master WHERE name = 'errors_ts'").get() as { sql: string };
    expect(statements.sql).toMatch(/errors \(ts\)/);
    const sqls: string[] = [];
    const original = store.database.prepare.bind(store.database);
    (store.database as unknown as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      sqls.push(sql);
      return original(sql);
    };
    store.errorCounts({ by: 'origin', since: START + 1234, until: START + DAY + 5678, flow: 'flows/a.prose' });
    const sql = sqls.find((s) => s.includes('error_rollups_day'))!;
    const plan = (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...new Array(7 * 3 + 1).fill(0)) as { detail: string }[]).map((p) => p.detail);
    const errorsAccess = plan.filter((d) => / errors\b/.test(d));
    expect(errorsAccess.length).toBeGreaterThan(0);
    for (const d of errorsAccess) expect(d).toMatch(/USING INDEX errors_ts/);
    for (const d of plan.filter((x) => /error_rollups/.test(x))) expect(d).toMatch(/^SEARCH/);
  });
});

describe('BatchRollups', () => {
  it('sums every grain like addErrorContribution, keys in first-occurrence order', () => {
    const random = prng(11);
    const pickOf = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const errors = Array.from({ length: 3_000 }, () => ({
      ts: START - DAY + Math.floor(random() * 3 * DAY),
      category: pickOf(['runtime', 'agent', 'git']),
      origin: pickOf(['runtime:fake', 'agent:coder', 'git']),
      code: pickOf(['A', 'B', 'C', 'D']),
      flow: pickOf(['flows/a.prose', 'flows/b.prose', '']),
      fingerprint: pickOf(['f1', 'f2']),
      disposition: pickOf(['pending', 'handled', 'unhandled'] as const),
    }));
    const batch = new BatchRollups();
    const deltas = emptyGrainDeltas();
    for (const e of errors) {
      batch.add(e);
      addErrorContribution(deltas, e);
    }
    // Settled occurrences leave their pending key: signed changes sum the same way.
    for (const e of errors.slice(0, 500)) {
      batch.add(e, -1);
      addErrorContribution(deltas, e, -1);
      const settled = { ...e, disposition: 'unhandled' as const };
      batch.add(settled);
      addErrorContribution(deltas, settled);
    }
    for (const grain of GRAINS) {
      const expected = [...deltas[grain]].map(([key, count]) => ({ ...parseRollupKey(key), count }));
      expect([...batch.entries(grain)], grain).toEqual(expected);
    }
    for (const [grain, map] of [
      ['hour', deltas.trendHour],
      ['day', deltas.trendDay],
    ] as const) {
      const expected = [...map].map(([key, count]) => ({ ...parseGroupTrendKey(key), count }));
      expect([...batch.trends(grain)], grain).toEqual(expected);
    }
  });
});
