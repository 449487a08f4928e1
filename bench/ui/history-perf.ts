/// <reference lib="dom" />
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { cachedHistory } from './bulk-seed.js';
import { costHealthScreens, judgeCostHealthReads } from './cost-health-perf.js';
import { detailScreens, seedDetailRuns } from './detail-screens.js';
import { describePageFloor, measurePageFloor } from './page-floor.js';
import { ERRORS_CHARTS, ERRORS_NUMBERS, FIRST_ROW } from './page-marks.js';
import { ensureProductionRenderer } from './renderer-build.js';
import { quantile, serves, type Judged } from './judged.js';
import { runsSession } from './runs-session.js';
import { historyCopy, ingestToken, writeLiveFlow } from './load-beside.js';
import { coldAndWarm, judgeOpens, QUICK_SCREEN_MS, type Mark } from './screen-opens.js';
import { wholeOption } from '../harness/flags.js';

/**
 * The window over a whole history, in Chromium against a real `hivewatch
 * serve` on a bulk history of 1,000,000 runs and 1,000,000 errors (`--quick`: 20,000 of each;
 * `--errors N` sets the errors, for the note at 10,000,000), generated in the OS temp directory
 * and reused for 20 minutes (its newest hour must still hold errors when the 1 h screens open).
 * Nothing the bench times is primed:
 *  - cold and warm opens: for each screen (Runs; Errors at 1 h, 24 h, 7 d, 30 d, all; Errors in
 *    each range with one filter: a category, an origin, a code, a flow), every sample starts a
 *    fresh `serve` on the history; its first open of the screen (a fresh browser context) is the
 *    cold figure, a second open right after is the warm one. p95 of the samples: Runs first rows
 *    painted < 300 ms; Errors first numbers (totals, issues with sparklines, occurrences) < 500 ms
 *    and its four charts drawn by recharts (loaded as a chunk of their own) < 800 ms, both from
 *    the open's navigation start, each cold and warm; a run's page, the largest issue's page and
 *    Compare (detail-screens.ts) < 500 ms cold and < 300 ms warm;
 *  - on one more fresh serve, filter, sort and text-search changes (hash change → the window
 *    paints the first row of the answer the server gave it; nothing is asked beforehand), each
 *    change asked `rounds` times in turn (the first round is the first time this serve answers
 *    it): p95 < 200 ms; the renderer's JS heap after paging the table and opening Errors <
 *    100 MB; a live run's row showing `completed` after its runCompleted was journaled
 *    (endedWall → painted, one machine clock): p95 < 100 ms.
 * - what failure costs and how flows fare (cost-health-perf.ts): the Flows screen and the Errors
 *   header's cost at 24 h, 7 d and 30 d opened cold and warm (< 500 ms cold, < 300 ms warm), and
 *   the store's cost split and flow health against their rollup-free GROUP BYs on the same file.
 * Every missed target is printed as MISSED and makes the bench exit 1. `--samples N` sets the
 * cold / warm samples per unfiltered screen (default 20, `--quick` 1: a guard against a screen that
 * takes seconds, which one fresh serve shows as well as two), `--filter-samples N` per
 * filtered Errors screen (default 10, `--quick` 1; the quick form opens the filters at 24 h and all only).
 * `--quick` judges against the quick bounds (QUICK_SCREEN_MS below, cost-health-perf.ts's and
 * runs-session.ts's), not the full run's targets.
 * `--screens cost` times only the cost and flow-health figures, `--screens loaded` only the
 * screens under load, `--screens detail` only the detail screens, quiet.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HOUR = 3_600_000;
const HISTORY_MAX_AGE_MS = 20 * 60_000;
const ERROR_RANGES = [
  ['1h', HOUR],
  ['24h', 24 * HOUR],
  ['7d', 7 * 24 * HOUR],
  ['30d', 30 * 24 * HOUR],
  ['all', Number.POSITIVE_INFINITY],
] as const;

/**
 * One filter at a time on the Errors screen, each a value the bulk history holds (bulk-seed.ts):
 * a category (a sixth of the errors), its only origin (all of them), a code, a flow (a fifth).
 */
const ERROR_FILTERS = [
  ['category', 'category=git'],
  ['origin', 'origin=runtime%3Afake'],
  ['code', 'code=RUNTIME_TIMEOUT'],
  ['flow', 'flow=examples%2F03-flaky-tests.prose'],
] as const;

/**
 * Errors in each range of the history, unfiltered and with each filter (read from the file, for
 * the report: an empty range would time an empty screen), keyed by the screen's query.
 */
function errorsPerScreen(dbPath: string): Record<string, number> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const counted: Record<string, number> = {};
    for (const [range, ms] of ERROR_RANGES) {
      const since = Number.isFinite(ms) ? Date.now() - ms : 0;
      counted[`range=${range}`] = (db.prepare('SELECT COUNT(*) AS n FROM errors WHERE ts >= ?').get(since) as { n: number }).n;
      for (const [column, query] of ERROR_FILTERS) {
        const value = decodeURIComponent(query.slice(query.indexOf('=') + 1));
        counted[`range=${range}&${query}`] = (
          db.prepare(`SELECT COUNT(*) AS n FROM errors WHERE ts >= ? AND ${column} = ?`).get(since, value) as { n: number }
        ).n;
      }
    }
    return counted;
  } finally {
    db.close();
  }
}

/** The cost and flow-health screens cold and warm, then the store's reads beside their rollup-free baseline (cost-health-perf.ts). */
async function costAndHealth(browser: Browser, dbPath: string, samples: number, quick: boolean): Promise<Judged[]> {
  const judged: Judged[] = [];
  for (const { name, hash, test, target, warmTarget } of costHealthScreens()) {
    const timed = await coldAndWarm(browser, dbPath, hash, [{ label: 'drawn', test, target }], samples);
    const screenBound = (full: number): number => (quick ? QUICK_SCREEN_MS : full);
    const [cold, warm] = [timed.cold[0] ?? [], timed.warm[0] ?? []];
    judged.push({
      name: `${name}, cold p95`,
      value: quantile(cold, 0.95),
      unit: 'ms',
      target: screenBound(target),
      detail: `first open on a fresh serve, ${serves(cold.length)}; p50 ${quantile(cold, 0.5)} ms${quick ? ` (--quick; < ${target} ms in the full run)` : ''}`,
    });
    judged.push({
      name: `${name}, warm p95`,
      value: quantile(warm, 0.95),
      unit: 'ms',
      target: screenBound(warmTarget),
      detail: `second open on the same serve, ${serves(warm.length)}; p50 ${quantile(warm, 0.5)} ms${quick ? ` (--quick; < ${warmTarget} ms in the full run)` : ''}`,
    });
  }
  judged.push(...judgeCostHealthReads(dbPath, samples, quick));
  return judged;
}

/** The detail screens' routes: a run's page, an issue's, Compare. */
const DETAIL_HASH = /^#\/(runs|issues|compare)\//;

/**
 * The screens opened again under load: Runs, the unfiltered Errors screens and the detail
 * screens (the quick form: Runs and Errors 24 h), each as many samples as quiet.
 */
function loadedScreens(screens: readonly Screen[], quick: boolean): Screen[] {
  const unfiltered = screens.filter((screen) => screen.hash === '#/runs' || /^#\/errors\?range=[^&]+$/.test(screen.hash) || DETAIL_HASH.test(screen.hash));
  return quick ? unfiltered.filter((screen) => screen.hash === '#/runs' || screen.hash === '#/errors?range=24h') : unfiltered;
}

interface Screen {
  name: string;
  hash: string;
  marks: readonly Mark[];
  samples: number;
}

const RUNS_MARKS: readonly Mark[] = [{ label: 'first rows painted', test: FIRST_ROW, target: 300 }];
/** The numbers first, then the charts: recharts never holds the numbers back. */
const ERRORS_MARKS: readonly Mark[] = [
  { label: 'first numbers (totals, issues with sparklines, occurrences)', test: ERRORS_NUMBERS, target: 500 },
  { label: 'charts drawn (the four recharts charts)', test: ERRORS_CHARTS, target: 800 },
];

/** An Errors screen the run may open: its query, its label, and whether it has a filter. */
interface ErrorsQuery {
  query: string;
  label: string;
  filtered: boolean;
}

/** The Errors screens this run considers: each range unfiltered, then each opened range with each filter. */
function errorsQueries(quick: boolean): ErrorsQuery[] {
  return [
    ...ERROR_RANGES.map(([range]) => ({ query: `range=${range}`, label: range, filtered: false })),
    ...filteredRanges(quick).flatMap((range) =>
      ERROR_FILTERS.map(([, query]) => ({ query: `range=${range}&${query}`, label: `${range}, ${decodeURIComponent(query)}`, filtered: true })),
    ),
  ];
}

/**
 * Every screen opened cold and warm: Runs, Errors in each range, then each range with each
 * filter. A filtered screen the history holds no errors for would time an empty page, so it is
 * left out and named in the report (only the `--quick` history's newest hour is that thin).
 */
function screensToOpen(inScreen: Record<string, number>, samples: number, filterSamples: number, quick: boolean): Screen[] {
  const errors = errorsQueries(quick)
    .filter(({ query, filtered }) => !filtered || (inScreen[query] ?? 0) > 0)
    .map(({ query, label, filtered }) => ({
      name: `Errors ${label} (${inScreen[query]} errors)`,
      hash: `#/errors?${query}`,
      marks: ERRORS_MARKS,
      samples: filtered ? filterSamples : samples,
    }));
  return [{ name: 'Runs', hash: '#/runs', marks: RUNS_MARKS, samples }, ...errors];
}

/** The Errors screens of this run whose range holds no error, for the report. */
function emptyScreens(inScreen: Record<string, number>, quick: boolean): string[] {
  return errorsQueries(quick)
    .filter(({ query }) => inScreen[query] === 0)
    .map(({ query }) => `#/errors?${decodeURIComponent(query)}`);
}

/**
 * The ranges opened with each filter: all five in the full run; in the quick form the default
 * range and the widest (24 h, all), the two ends of what a filter reads, so CI starts eight serves
 * for them rather than twenty (docs/benches.md "Quick forms").
 */
function filteredRanges(quick: boolean): string[] {
  return ERROR_RANGES.map(([range]) => range).filter((range) => !quick || range === '24h' || range === 'all');
}

/** `--screens`: every figure, only the cost and flow-health figures, only the screens under load, or only the detail screens, quiet. */
const PARTS = ['all', 'cost', 'loaded', 'detail'] as const;
type Part = (typeof PARTS)[number];

interface Options {
  part: Part;
  quick: boolean;
  json: boolean;
  size: number;
  errorCount: number;
  samples: number;
  filterSamples: number;
}

function optionsOf(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean' },
      json: { type: 'boolean' },
      samples: { type: 'string' },
      'filter-samples': { type: 'string' },
      errors: { type: 'string' },
      screens: { type: 'string' },
    },
  });
  const part = values.screens ?? 'all';
  if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--screens takes ${PARTS.join(', ')}, not "${part}"`);
  const quick = values.quick === true;
  const size = quick ? 20_000 : 1_000_000;
  return {
    part: part as Part,
    quick,
    json: values.json === true,
    size,
    errorCount: wholeOption(values.errors, 'errors', size),
    samples: wholeOption(values.samples, 'samples', quick ? 1 : 20),
    filterSamples: wholeOption(values['filter-samples'], 'filter-samples', quick ? 1 : 10),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  let options: Options;
  try {
    options = optionsOf(argv);
  } catch (error) {
    // A mistyped option is refused before anything runs (exit 2), not reported as a missed target.
    console.error(`history bench: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const { part, quick, json, size, errorCount, samples, filterSamples } = options;
  ensureProductionRenderer(ROOT);
  // A cached history is used for 20 minutes: its newest hour must still hold errors when the
  // 1 h screens are opened, which is minutes into the run (about 7 at the defaults). Reused for
  // an hour, a run started at 56 minutes found an empty 1 h screen and waited on it until it failed.
  const history = cachedHistory(size, errorCount, HISTORY_MAX_AGE_MS);
  await seedDetailRuns(history.path);
  const inScreen = errorsPerScreen(history.path);
  let browser: Browser | null = null;
  try {
    browser = await launchChromium(['--enable-precise-memory-info']);
    const judged: Judged[] = [];
    // Beside the screens, never judged: what a fresh context costs any page (page-floor.ts).
    const floor = await measurePageFloor(browser, ROOT, samples);
    const screens = [...screensToOpen(inScreen, samples, filterSamples, quick), ...detailScreens(history.path).map((screen) => ({ ...screen, samples }))];
    const empty = emptyScreens(inScreen, quick);
    const quiet = part === 'all' ? screens : part === 'detail' ? screens.filter((screen) => DETAIL_HASH.test(screen.hash)) : [];
    for (const { name, hash, marks, samples: n } of quiet) {
      judged.push(...judgeOpens(name, marks, await coldAndWarm(browser, history.path, hash, marks, n), quick));
    }
    if (part === 'all' || part === 'loaded') {
      // The same screens again while the OTLP stream and the live runs write (load-beside.ts), on a copy.
      const copy = await historyCopy(history.path);
      try {
        const load = { token: ingestToken(copy.path), flow: writeLiveFlow(copy.path) };
        for (const { name, hash, marks, samples: n } of loadedScreens(screens, quick)) {
          judged.push(...judgeOpens(`${name} under load`, marks, await coldAndWarm(browser, copy.path, hash, marks, n, load), quick));
        }
      } finally {
        copy.remove();
      }
    }
    if (part === 'all') judged.push(...(await runsSession(browser, history.path, quick)));
    if (part === 'all' || part === 'cost') judged.push(...(await costAndHealth(browser, history.path, samples, quick)));
    const missed = judged.filter((j) => j.value >= j.target);
    const result = {
      history: { runs: size, errors: errorCount, db: history.path, generatedMs: history.generatedMs, errorsPerScreen: inScreen },
      samples,
      filterSamples,
      pageFloor: floor,
      figures: judged,
      notTimed: empty,
      missed: missed.map((m) => m.name),
    };
    mkdirSync(join(ROOT, 'artifacts', 'perf'), { recursive: true });
    writeFileSync(join(ROOT, 'artifacts', 'perf', 'history-perf.json'), `${JSON.stringify(result, null, 2)}\n`);
    if (json) console.log(JSON.stringify(result, null, 2));
    else {
      console.log(
        `History of ${size.toLocaleString('en-US')} runs and ${errorCount.toLocaleString('en-US')} errors (${history.generatedMs ? `generated in ${(history.generatedMs / 1000).toFixed(1)} s` : 'cached'}: ${history.path})`,
      );
      console.log(`  The floor of a fresh context (information): ${describePageFloor(floor)}`);
      for (const j of judged) {
        console.log(`  ${`${j.name}:`.padEnd(110)} ${j.value} ${j.unit} (target < ${j.target} ${j.unit}${j.value < j.target ? '' : ', MISSED'})`);
        console.log(`      ${j.detail}`);
      }
      if (empty.length > 0) console.log(`  not timed, the history holds no errors there: ${empty.join(' · ')}`);
      console.log(missed.length === 0 ? `${judged.length} targets met` : `${missed.length} of ${judged.length} targets MISSED`);
    }
    return missed.length === 0 ? 0 : 1;
  } finally {
    await browser?.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
