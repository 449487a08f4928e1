import type Database from 'better-sqlite3';
import type { CostSplitAnswerView, FlowHealthView } from '../../core/service/api-usage.js';
import type { IssueDetail } from '../../core/service/api-issue-page.js';
import type { Issue } from '../../core/service/api-issues.js';
import type { ErrorOccurrence, RunSummary } from '../../core/service/api.js';
import { growth } from '../../core/service/issues/scope.js';
import { medianOfBuckets } from '../../core/store/outcomes/durations.js';
import { Dialect, runSync, type Query } from '../../core/store/queries/plan.js';
import { StatementCache } from '../../core/store/queries/sql.js';
import { costSplitByScan, runOutcomesByScan } from '../../core/store/testing/outcome-scans.js';
import { isDeepStrictEqual } from 'node:util';
import type { Api } from '../ui/serve.js';

/**
 * What each triage figure asks (docs/benches.md "Triage at scale"): the requests the window sends
 * for it, through a real serve's HTTP API (answered from the rollups), and the same question
 * answered by plain aggregate queries over the base tables (errors, runs, attempt_usage; no
 * rollup, no group or issue table), reduced to the same comparable figures so the bench can
 * assert that both say the same thing.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RETRYABLE = 'failed,cancelled,interrupted';

interface Window {
  since: number;
  until: number;
}

export interface Ask {
  name: string;
  /** What one open times, in words (printed beside the figure). */
  timed: string;
  coldTarget: number;
  warmTarget: number;
  /** The requests, sent at once as the window sends them; the comparable answer. */
  api: (api: Api) => Promise<unknown>;
  /** The rollup-free answer on a plain connection to the same file. */
  baseline: (db: Database.Database) => unknown;
  /** Whether a served answer says what the baseline's does; deep equality when absent. */
  agrees?: (served: unknown, baseline: unknown) => boolean;
  /** The baseline's answer has something to compare (two empty answers would agree and prove nothing). */
  holdsFigures: (answer: unknown) => boolean;
}

/** Money summed in another order differs in its last bits: compared to a hundredth of a cent. */
export function comparable(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Math.round(value * 10_000) / 10_000;
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

const query = (params: Record<string, string | number>): string => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

function scanned<T>(db: Database.Database, make: () => Query<T>): T {
  return runSync(new StatementCache(db), make());
}

const count = (db: Database.Database, sql: string, ...params: unknown[]): number => Number((db.prepare(sql).get(...params) as { n: number | null }).n ?? 0);

/** The issue page's figures: what it shows about one issue, from either side. */
interface PageFigures {
  period: [number, number];
  previous: [number, number];
  allTime: { occurrences: number; runs: number; failures: number };
  flows: [string, number][];
  failedRuns: { runs: number; costUsd: number };
  newestOccurrences: string[];
  newestRuns: string[];
  /** Exact, or (from the serve) a lower bound: run counts that read runs stop at 10,000 (run-counts.ts) and say so. */
  retryable: number | { atLeast: number };
  periodCost: unknown;
}

function issuePageByApi(api: Api, fingerprint: string, window: Window): Promise<PageFigures> {
  const scope = query({ since: window.since, until: window.until });
  return Promise.all([
    api.get<IssueDetail>(`/api/issues/${fingerprint}/page?${scope}`),
    api.get<{ items: ErrorOccurrence[] }>(`/api/errors?${scope}&${query({ fingerprint, limit: 25 })}`),
    api.get<{ items: RunSummary[] }>(`/api/runs?${query({ issue: fingerprint, limit: 20 })}`),
    api.get<{ total: number; atLeast: boolean }>(`/api/runs/counts?${query({ issue: fingerprint, status: RETRYABLE })}`),
    api.get<CostSplitAnswerView>(`/api/usage/split?${scope}&${query({ issue: fingerprint })}`),
  ]).then(([page, occurrences, runs, retryable, cost]) => ({
    period: [page.issue.period.events, page.issue.period.failures],
    previous: [page.issue.period.previous?.events ?? -1, page.issue.period.previous?.failures ?? -1],
    allTime: { occurrences: page.issue.occurrences, runs: page.issue.runs, failures: page.issue.failures },
    flows: page.flows.map((f) => [f.flow, f.occurrences]),
    failedRuns: { runs: page.cost.failedRuns, costUsd: page.cost.costUsd },
    newestOccurrences: occurrences.items.map((o) => `${o.runId}#${o.seq}`),
    newestRuns: runs.items.map((r) => r.id),
    retryable: retryable.atLeast ? { atLeast: retryable.total } : retryable.total,
    periodCost: cost.total,
  }));
}

/** Equal figures, but a count the serve gives as "at least N" agrees with any exact count ≥ N. */
function pageAgrees(served: unknown, baseline: unknown): boolean {
  const [a, b] = [served as PageFigures, baseline as PageFigures];
  const bound = (n: PageFigures['retryable']): [number, boolean] => (typeof n === 'number' ? [n, false] : [n.atLeast, true]);
  const [[got, lower], [exact]] = [bound(a.retryable), bound(b.retryable)];
  return isDeepStrictEqual({ ...a, retryable: 0 }, { ...b, retryable: 0 }) && (lower ? got <= exact : got === exact);
}

function issuePageByScan(db: Database.Database, fingerprint: string, window: Window): PageFigures {
  const span = window.until - window.since;
  const inWindow = (since: number, until: number): [number, number] => {
    const row = db
      .prepare('SELECT COUNT(*) AS n, SUM(ending) AS f FROM errors WHERE fingerprint = ? AND ts >= ? AND ts < ?')
      .get(fingerprint, since, until) as { n: number; f: number | null };
    return [row.n, row.f ?? 0];
  };
  const all = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT run_id) AS r, SUM(ending) AS f FROM errors WHERE fingerprint = ?').get(fingerprint) as {
    n: number;
    r: number;
    f: number | null;
  };
  const cost = db
    .prepare(`SELECT COUNT(*) AS n, SUM((SELECT SUM(COALESCE(u.cost_usd, 0)) FROM attempt_usage AS u WHERE u.run_id = e.run_id)) AS c
      FROM errors AS e WHERE e.fingerprint = ? AND e.ending = 1`)
    .get(fingerprint) as { n: number; c: number | null };
  return {
    period: inWindow(window.since, window.until),
    previous: inWindow(window.since - span, window.since),
    allTime: { occurrences: all.n, runs: all.r, failures: all.f ?? 0 },
    flows: (
      db.prepare('SELECT flow, COUNT(*) AS n FROM errors WHERE fingerprint = ? GROUP BY flow ORDER BY n DESC, flow').all(fingerprint) as {
        flow: string;
        n: number;
      }[]
    ).map((r) => [r.flow, r.n]),
    failedRuns: { runs: cost.n, costUsd: cost.c ?? 0 },
    newestOccurrences: (
      db
        .prepare('SELECT run_id, seq FROM errors WHERE fingerprint = ? AND ts >= ? AND ts < ? ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 25')
        .all(fingerprint, window.since, window.until) as { run_id: string; seq: number }[]
    ).map((r) => `${r.run_id}#${r.seq}`),
    newestRuns: (
      db
        .prepare('SELECT id FROM runs WHERE id IN (SELECT run_id FROM errors WHERE fingerprint = ?) ORDER BY started_at DESC, id DESC LIMIT 20')
        .all(fingerprint) as { id: string }[]
    ).map((r) => r.id),
    retryable: count(
      db,
      "SELECT COUNT(*) AS n FROM runs WHERE status IN ('failed', 'cancelled', 'interrupted') AND id IN (SELECT run_id FROM errors WHERE fingerprint = ?)",
      fingerprint,
    ),
    periodCost: scanned(db, () => costSplitByScan(Dialect.sqlite, { fingerprints: [fingerprint], since: window.since, until: window.until })).total,
  };
}

type TrendRow = [id: string, events: number, failures: number, previousEvents: number, previousFailures: number];

/** Every issue with events in the window, in the trend sort's order (core/service/issues/book.ts: growth, then events, last seen, id). */
function trendByScan(db: Database.Database, window: Window): TrendRow[] {
  const before = window.since - (window.until - window.since);
  const rows = db
    .prepare(`SELECT fingerprint, SUM(ts >= @since) AS events, SUM(CASE WHEN ts >= @since THEN ending ELSE 0 END) AS failures,
        SUM(ts < @since) AS prev_events, SUM(CASE WHEN ts < @since THEN ending ELSE 0 END) AS prev_failures
      FROM errors WHERE ts >= @before AND ts < @until GROUP BY fingerprint`)
    .all({ since: window.since, until: window.until, before }) as {
    fingerprint: string;
    events: number;
    failures: number;
    prev_events: number;
    prev_failures: number;
  }[];
  const lastSeen = new Map(
    (db.prepare('SELECT fingerprint, MAX(ts) AS ts FROM errors GROUP BY fingerprint').all() as { fingerprint: string; ts: number }[]).map((r) => [
      r.fingerprint,
      r.ts,
    ]),
  );
  const period = (r: (typeof rows)[number]) => ({
    since: window.since,
    until: window.until,
    events: r.events,
    failures: r.failures,
    previous: { since: before, until: window.since, events: r.prev_events, failures: r.prev_failures },
    change: null,
  });
  return rows
    .filter((r) => r.events > 0)
    .sort(
      (a, b) =>
        growth(period(b)) - growth(period(a)) ||
        b.events - a.events ||
        (lastSeen.get(b.fingerprint) ?? 0) - (lastSeen.get(a.fingerprint) ?? 0) ||
        a.fingerprint.localeCompare(b.fingerprint),
    )
    .map((r) => [r.fingerprint, r.events, r.failures, r.prev_events, r.prev_failures]);
}

const trendRow = (i: Issue): TrendRow => [i.id, i.period.events, i.period.failures, i.period.previous?.events ?? -1, i.period.previous?.failures ?? -1];

/** Each flow's health as compared: its newest run, runs ended by status, p50, what it spent. */
function healthByApi(flows: FlowHealthView[]): unknown {
  return flows.map((f) => ({
    flow: f.flow,
    last: f.lastRun ? `${f.lastRun.id} ${f.lastRun.status}` : null,
    ended: f.ended,
    p50: f.p50DurationMs,
    cost: f.cost,
  }));
}

function healthByScan(db: Database.Database, window: Window): unknown {
  const outcomes = scanned(db, () => runOutcomesByScan(window.since, window.until));
  const cost = scanned(db, () => costSplitByScan(Dialect.sqlite, window));
  const newest = db
    .prepare(`SELECT r.flow, r.id, r.status FROM runs AS r JOIN (SELECT flow, MAX(started_at) AS started_at FROM runs GROUP BY flow) AS m
      ON m.flow = r.flow AND m.started_at = r.started_at ORDER BY r.flow, r.id DESC`)
    .all() as { flow: string; id: string; status: string }[];
  const last = new Map<string, string>();
  for (const r of newest) if (!last.has(r.flow)) last.set(r.flow, `${r.id} ${r.status}`);
  return [...last.keys()].map((flow) => {
    const ended = { completed: 0, failed: 0, cancelled: 0, interrupted: 0 };
    const durations = new Map<number, number>();
    for (const o of outcomes.filter((x) => x.flow === flow)) {
      if (o.status in ended) ended[o.status as keyof typeof ended] += o.runs;
      if (o.status === 'completed') durations.set(o.durationBucket, (durations.get(o.durationBucket) ?? 0) + o.runs);
    }
    const split = cost.flows.find((f) => f.flow === flow)?.split;
    return { flow, last: last.get(flow) ?? null, ended, p50: medianOfBuckets(durations), cost: split ?? null };
  });
}

/** A cost answer with attempts in it. */
const spent = (answer: unknown): boolean => {
  const total = (answer as { total?: Record<string, { attempts?: number }> }).total ?? {};
  return Object.values(total).some((figures) => (figures.attempts ?? 0) > 0);
};

/** The five figures, at the bench's fixed end `until` (every window ends there: both sides count the same errors). */
export function triageAsks(fingerprint: string, until: number): Ask[] {
  const day: Window = { since: until - DAY, until };
  const month: Window = { since: until - 30 * DAY, until };
  const monthQuery = query({ since: month.since, until: month.until });
  const targets = { coldTarget: 500, warmTarget: 300 };
  return [
    {
      name: 'issue page, 24 h',
      timed: `the 5 requests the issue page sends at once for the busiest issue (${fingerprint}) over 24 h: the page, 25 occurrences, 20 runs affected, their retryable count, the period's cost; until the last answers`,
      ...targets,
      api: (api) => issuePageByApi(api, fingerprint, day),
      baseline: (db) => issuePageByScan(db, fingerprint, day),
      agrees: pageAgrees,
      holdsFigures: (answer) => (answer as PageFigures).period[0] > 0 && (answer as PageFigures).newestRuns.length > 0,
    },
    {
      name: 'issues sorted by trend, 30 d',
      timed: "GET /api/issues over 30 d sorted by trend (every status, up to 1,000): each issue's events and failures in the period and the 30 d before",
      ...targets,
      api: async (api) => (await api.get<{ items: Issue[] }>(`/api/issues?${monthQuery}&sort=trend&limit=1000`)).items.map(trendRow),
      baseline: (db) => trendByScan(db, month),
      holdsFigures: (answer) => (answer as TrendRow[]).length > 1,
    },
    {
      name: 'cost split, 30 d',
      timed: 'GET /api/usage/split over 30 d: spent by failed runs, on recovered retries and by success, per flow and per day',
      ...targets,
      api: (api) => api.get<CostSplitAnswerView>(`/api/usage/split?${monthQuery}`),
      baseline: (db) => scanned(db, () => costSplitByScan(Dialect.sqlite, month)),
      holdsFigures: spent,
    },
    {
      name: 'issue cost, 30 d',
      timed: `GET /api/usage/split over 30 d for the busiest issue (${fingerprint}): what its failed runs and its failed attempts cost`,
      ...targets,
      api: (api) => api.get<CostSplitAnswerView>(`/api/usage/split?${monthQuery}&${query({ issue: fingerprint })}`),
      baseline: (db) => scanned(db, () => costSplitByScan(Dialect.sqlite, { ...month, fingerprints: [fingerprint] })),
      holdsFigures: spent,
    },
    {
      name: 'flow health, 30 d',
      timed: "GET /api/flows/health over 30 d: each flow's newest run, runs ended by status, p50 duration and cost split",
      ...targets,
      api: async (api) => healthByApi(await api.get<FlowHealthView[]>(`/api/flows/health?${monthQuery}`)),
      baseline: (db) => healthByScan(db, month),
      holdsFigures: (answer) => (answer as unknown[]).length > 0,
    },
  ];
}
