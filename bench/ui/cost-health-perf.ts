import { openSqliteStore, type SqliteStore } from '../../core/store/index.js';
import { Dialect, runSync, type Query } from '../../core/store/queries/plan.js';
import { StatementCache } from '../../core/store/queries/sql.js';
import { costSplitByScan, runOutcomesByScan } from '../../core/store/testing/outcome-scans.js';
import { all } from '../../core/store/queries/plan.js';
import { quantile, type Judged } from './judged.js';

/**
 * What failure costs and how each flow fares, at the history bench's scale (docs/benches.md): the
 * Flows screen with every flow's health and the period's cost, and the Errors header's cost, each
 * opened cold and warm in Chromium (history-perf.ts times them: < 500 ms cold, < 300 ms warm);
 * and the store's two reads against their rollup-free baseline (plain GROUP BYs over the
 * attempts and runs, outcome-scans.ts), timed here in the same run on the same file.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The Flows screen with the health table's figures and the period's cost drawn. */
const FLOWS_FILLED = `document.querySelector('[data-testid="flow-health"] tr.flow-item[data-last-status="completed"], [data-testid="flow-health"] tr.flow-item[data-last-status="failed"]') !== null
  && document.querySelector('[data-testid="flow-cost"]') !== null
  && document.querySelector('[data-testid="flows-cost"] [data-testid="cost-split"]') !== null`;

/** The Errors header's cost drawn (its three figures). */
const ERRORS_COST = `document.querySelector('[data-testid="errors-cost"] [data-testid="cost-split"]') !== null`;

export interface CostScreen {
  name: string;
  hash: string;
  test: string;
  target: number;
  warmTarget: number;
}

export function costHealthScreens(): CostScreen[] {
  return [
    { name: "Flows, every flow's health and the 7 d cost drawn", hash: '#/flows', test: FLOWS_FILLED, target: 500, warmTarget: 300 },
    ...(['24h', '7d', '30d'] as const).map((range) => ({
      name: `Errors ${range}, every issue status, the header's cost drawn`,
      hash: `#/errors?range=${range}&istatus=all`,
      test: ERRORS_COST,
      target: 500,
      warmTarget: 300,
    })),
  ];
}

interface Timed {
  name: string;
  /** The window read: `24 h`, `7 d` or `30 d`. */
  range: string;
  cold: number[];
  warm: number[];
  baselineCold: number[];
  baselineWarm: number[];
}

function timed<T>(store: SqliteStore, query: () => Query<T>): number {
  const cache = new StatementCache(store.database);
  const started = performance.now();
  runSync(cache, query());
  return performance.now() - started;
}

/** The newest run of each flow, read with a GROUP BY over every run: what a health list without the start-time index reads. */
function* newestRunsByScan(): Query<unknown[]> {
  return yield* all('SELECT flow, MAX(started_at) AS started_at FROM runs GROUP BY flow');
}

/**
 * Each read cold (a fresh connection's first) and warm (its second), `samples` times, the rollups'
 * and the rollup-free baseline's alternately on fresh connections to the same file.
 */
function costHealthQueries(dbPath: string, now: number, samples: number): Timed[] {
  const windows = [
    ['24 h', now - DAY],
    ['7 d', now - 7 * DAY],
    ['30 d', now - 30 * DAY],
  ] as const;
  const reads: { name: string; range: string; rollups: (store: SqliteStore) => void; baseline: (store: SqliteStore) => void }[] = windows.flatMap(
    ([label, since]) => [
      {
        name: `cost split ${label}, store read`,
        range: label,
        rollups: (store: SqliteStore) => void store.usage({ kind: 'costSplit', query: { since, now } }),
        baseline: (store: SqliteStore) => void timed(store, () => costSplitByScan(Dialect.sqlite, { since, now })),
      },
      {
        name: `flow health ${label}, store read`,
        range: label,
        rollups: (store: SqliteStore) => void store.usage({ kind: 'flowHealth', query: { since, now } }),
        baseline: (store: SqliteStore) => {
          timed(store, () => runOutcomesByScan(since, undefined));
          timed(store, () => costSplitByScan(Dialect.sqlite, { since, now }));
          timed(store, newestRunsByScan);
        },
      },
    ],
  );
  const out: Timed[] = [];
  for (const read of reads) {
    const result: Timed = { name: read.name, range: read.range, cold: [], warm: [], baselineCold: [], baselineWarm: [] };
    for (let i = 0; i < samples; i++) {
      for (const [run, cold, warm] of [
        [read.rollups, result.cold, result.warm],
        [read.baseline, result.baselineCold, result.baselineWarm],
      ] as const) {
        const store = openSqliteStore({ path: dbPath, readonly: true });
        try {
          for (const into of [cold, warm]) {
            const started = performance.now();
            run(store);
            into.push(performance.now() - started);
          }
        } finally {
          store.close();
        }
      }
    }
    out.push(result);
  }
  return out;
}

/**
 * The quick form's bounds on the store's reads: the 30 d cost and flow-health reads are judged
 * against their rollup-free GROUP BY in the same run, p50 against p50 (5–28× faster at 20,000
 * runs; a p95 of two reads was set by one burst): one that lost its rollups reads what the GROUP
 * BY reads. Their 24 h and 7 d windows hold too few rows for a ratio (the GROUP BY took 2–21 ms).
 * Every read keeps the full run's targets.
 */
const QUICK_READ_RATIO = 2;
/** Reads of each window in the quick form: cheap (milliseconds), and a p50 of 10 a burst does not set. */
const QUICK_READ_SAMPLES = 5;

/** Quick, 30 d: the store's read (cold and warm together) at its p50 under the rollup-free GROUP BY's p50 over QUICK_READ_RATIO. */
function againstGroupBy(read: Timed): Judged {
  const mine = quantile([...read.cold, ...read.warm], 0.5);
  const base = quantile([...read.baselineCold, ...read.baselineWarm], 0.5);
  return {
    name: `${read.name}, p50 against the rollup-free GROUP BY's p50 / ${QUICK_READ_RATIO}`,
    value: mine,
    unit: 'ms',
    target: base / QUICK_READ_RATIO,
    detail: `--quick only; ${read.cold.length + read.warm.length} reads each, cold and warm; GROUP BY p50 ${base} ms (${(base / Math.max(1, mine)).toFixed(1)}×)`,
  };
}

/** The store's cost split and flow health at each range, cold and warm, judged beside their rollup-free GROUP BYs. */
export function judgeCostHealthReads(dbPath: string, samples: number, quick: boolean): Judged[] {
  const judged: Judged[] = [];
  for (const read of costHealthQueries(dbPath, Date.now(), quick ? QUICK_READ_SAMPLES : samples)) {
    const vs = (mine: number[], base: number[]): string =>
      `rollup-free GROUP BY p95 ${quantile(base, 0.95)} ms (${(quantile(base, 0.95) / Math.max(1, quantile(mine, 0.95))).toFixed(0)}×)`;
    judged.push({
      name: `${read.name}, cold p95`,
      value: quantile(read.cold, 0.95),
      unit: 'ms',
      target: 500,
      detail: `a fresh connection's first read, ${read.cold.length} connections; ${vs(read.cold, read.baselineCold)}`,
    });
    judged.push({
      name: `${read.name}, warm p95`,
      value: quantile(read.warm, 0.95),
      unit: 'ms',
      target: 300,
      detail: `its second read; ${vs(read.warm, read.baselineWarm)}`,
    });
    if (quick && read.range === '30 d') judged.push(againstGroupBy(read));
  }
  return judged;
}
