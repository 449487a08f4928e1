import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cachedHistory } from './bulk-seed.js';
import { historyCopy } from './load-beside.js';
import { apiOf, startServe, stopServe, type Api, type Serve } from './serve.js';

/**
 * Where the Errors screen's time goes: the API requests the screen makes for a range, against a
 * fresh `hivewatch serve` on a copy of a history file (serve writes to it; the copy keeps the
 * original as it was generated). The first pass on a fresh serve is the cold figure (a fresh
 * process; the OS page cache keeps the file's pages), the passes right after it the warm ones.
 *
 *   node dist-dev/bench/ui/errors-requests.js <history.db> | --generate RUNS
 *        [--passes N] [--samples N] [--filter flow=…] [--range 30d]… [--at-once] [--workers 0,2]
 *
 * One at a time (the default), each request is timed alone: what each read costs. `--at-once`
 * sends the screen's requests together, as the window does (at most five in flight: Chromium's six
 * connections to one host, less the live stream's), and times the screen: from the first request sent to the last answer. `--workers 0,2` runs every range once per read-worker count
 * (serve's HIVEWATCH_READ_WORKERS; 0 is every read on the one connection, the baseline), each on
 * its own fresh serves, their order alternating from range to range; `--samples N` starts N fresh
 * serves per range and count. `--generate RUNS` makes (or reuses, for 20 minutes) a bulk history
 * of RUNS runs and as many errors (bulk-seed.ts). The requests mirror
 * renderer/errors/errors-loads.ts, IssuesPanel.tsx and FailureCost.tsx.
 */

const HOUR = 3_600_000;
const RANGES = [
  ['1h', HOUR, 'minute'],
  ['24h', 24 * HOUR, 'hour'],
  ['7d', 7 * 24 * HOUR, 'hour'],
  ['30d', 30 * 24 * HOUR, 'day'],
  ['all', null, 'day'],
] as const;
/** The series chart draws at most this many bars (renderer/errors/errors-query.ts MAX_BARS). */
const MAX_BARS = 400;
const BUCKET_MS = { minute: 60_000, hour: HOUR, day: 24 * HOUR } as const;
/** A generated history's newest hour must still hold errors when the 1 h screen is asked for. */
const HISTORY_MAX_AGE_MS = 20 * 60_000;

interface Request {
  name: string;
  path: string;
}

/** The screen's requests for a window starting at `since` (null: all time) with its chart bucket. */
function requestsFor(since: number | null, bucket: keyof typeof BUCKET_MS, now: number, filter: string): Request[] {
  const window = `${since === null ? '' : `since=${since}&`}${filter === '' ? '' : `${filter}&`}`;
  const seriesSince = since ?? now - MAX_BARS * BUCKET_MS[bucket];
  return [
    { name: 'counts by category', path: `/api/errors/counts?${window}by=category` },
    { name: 'counts by origin', path: `/api/errors/counts?${window}by=origin&limit=12` },
    { name: 'counts by code', path: `/api/errors/counts?${window}by=code&limit=12` },
    { name: 'counts by flow', path: `/api/errors/counts?${window}by=flow&limit=50` },
    { name: 'counts by handled', path: `/api/errors/counts?${window}by=handled` },
    { name: 'failure counts', path: `/api/failures/counts?${window}by=code&limit=1` },
    { name: 'groups + trends', path: `/api/errors/groups?${window}limit=100&trendBins=24` },
    {
      name: 'series',
      path: `/api/errors/series?${filter === '' ? '' : `${filter}&`}since=${Math.max(seriesSince, now - MAX_BARS * BUCKET_MS[bucket])}&bucket=${bucket}&stackBy=category`,
    },
    { name: 'occurrences (500)', path: `/api/errors?${window}limit=500` },
    { name: 'issues (unresolved)', path: '/api/issues?status=unresolved&sort=last-seen&limit=1000' },
    { name: 'cost split (unresolved issues)', path: `/api/usage/split?${window}issueStatus=unresolved` },
  ];
}

async function timed(api: Api, path: string): Promise<number> {
  const started = performance.now();
  await api.get<unknown>(path);
  return performance.now() - started;
}

/** One pass over the screen: each request's time alone, or (at once) the screen's time as the only figure. */
async function pass(api: Api, requests: readonly Request[], atOnce: boolean): Promise<number[]> {
  if (atOnce) return [await screenAtOnce(api, requests)];
  const times: number[] = [];
  for (const request of requests) times.push(await timed(api, request.path));
  return times;
}

/**
 * How many requests the window has in flight to serve at once: Chromium opens six HTTP/1.1
 * connections to one host, and the live stream holds one (docs/decisions/0016-errors-screen.md).
 */
const CONNECTIONS_PER_HOST = 5;

/** The screen's requests sent together, at most CONNECTIONS_PER_HOST in flight, each next one as soon as one is answered. */
async function screenAtOnce(api: Api, requests: readonly Request[]): Promise<number> {
  const started = performance.now();
  const queue = [...requests];
  const connection = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await api.get<unknown>(next.path);
  };
  await Promise.all(Array.from({ length: CONNECTIONS_PER_HOST }, connection));
  return performance.now() - started;
}

interface Options {
  source: string | null;
  generate: number | null;
  passes: number;
  samples: number;
  filter: string;
  ranges: readonly string[] | undefined;
  atOnce: boolean;
  /** Read-worker counts to compare; null: serve's own default (nothing set). */
  workers: readonly (number | null)[];
}

const USAGE =
  'usage: errors-requests.js <history.db> | --generate RUNS [--passes N] [--samples N] [--filter name=value] [--range 1h|24h|7d|30d|all]… [--at-once] [--workers 0,2]';

function optionsOf(argv: readonly string[]): Options {
  const { positionals, values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      passes: { type: 'string', default: '2' },
      samples: { type: 'string', default: '1' },
      filter: { type: 'string', default: '' },
      range: { type: 'string', multiple: true },
      'at-once': { type: 'boolean', default: false },
      workers: { type: 'string' },
      generate: { type: 'string' },
    },
  });
  const generate = values.generate === undefined ? null : Number(values.generate);
  if (generate !== null && !(Number.isInteger(generate) && generate > 0)) throw new Error(`--generate needs a number of runs, got "${values.generate}"`);
  const source = positionals[0] ?? null;
  if ((source === null) === (generate === null)) throw new Error(USAGE);
  const workers = values.workers === undefined ? [null] : values.workers.split(',').map((text) => Number(text.trim()));
  if (workers.some((n) => n !== null && !(Number.isInteger(n) && n >= 0))) throw new Error(`--workers needs counts like 0,2, got "${values.workers}"`);
  return {
    source,
    generate,
    passes: Math.max(2, Number(values.passes) || 2),
    samples: Math.max(1, Number(values.samples) || 1),
    filter: values.filter === '' ? '' : new URLSearchParams([values.filter.split('=', 2) as [string, string]]).toString(),
    ranges: values.range,
    atOnce: values['at-once'] === true,
    workers,
  };
}

/** Figures of one range on one read-worker count: per request (or the screen), cold (one per serve) and warm. */
interface Figures {
  names: readonly string[];
  cold: number[][];
  warm: number[][];
}

/** `samples` fresh serves on `copy`, each asked the screen `passes` times. */
async function measure(copy: string, range: (typeof RANGES)[number], workers: number | null, options: Options): Promise<Figures> {
  const [, span, bucket] = range;
  let figures: Figures | null = null;
  for (let sample = 0; sample < options.samples; sample++) {
    let serve: Serve | null = null;
    try {
      serve = await startServe(copy, workers === null ? {} : { HIVEWATCH_READ_WORKERS: String(workers) });
      const api = apiOf(serve.url);
      const now = Math.ceil(Date.now() / 60_000) * 60_000;
      const requests = requestsFor(span === null ? null : now - span, bucket, now, options.filter);
      const names = options.atOnce ? ['the screen, requests at once'] : requests.map((r) => r.name);
      figures ??= { names, cold: names.map(() => []), warm: names.map(() => []) };
      for (let p = 0; p < options.passes; p++) {
        const times = await pass(api, requests, options.atOnce);
        times.forEach((ms, i) => (p === 0 ? figures!.cold : figures!.warm)[i]!.push(ms));
      }
    } finally {
      await stopServe(serve);
    }
  }
  return figures!;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (value: number): string => value.toFixed(0).padStart(6);

export async function main(argv: readonly string[]): Promise<void> {
  const options = optionsOf(argv);
  let source = options.source;
  if (source === null) {
    const history = cachedHistory(options.generate!, options.generate!, HISTORY_MAX_AGE_MS);
    console.log(
      `history of ${options.generate} runs and errors: ${history.path} (${history.generatedMs ? `generated in ${(history.generatedMs / 1000).toFixed(1)} s` : 'cached'})`,
    );
    source = history.path;
  }
  // One copy for every serve of this run: serve writes to the file (its port and token), and the
  // history stays as it was generated. A copy per serve cost a 2.5 GB write each at 1,000,000 runs.
  // SQLite's backup, as the loaded screens copy it (load-beside.ts), not a copy of the file's bytes.
  const copied = await historyCopy(source);
  const copy = copied.path;
  const rows: string[] = [];
  const load = loadavg()[0]!.toFixed(1);
  try {
    const ranges = RANGES.filter(([range]) => options.ranges === undefined || options.ranges.includes(range));
    for (const [index, range] of ranges.entries()) {
      // Alternating which count goes first, so neither always has the other's page cache behind it.
      const order = index % 2 === 0 ? options.workers : [...options.workers].reverse();
      const byWorkers = new Map<number | null, Figures>();
      for (const workers of order) byWorkers.set(workers, await measure(copy, range, workers, options));
      for (const workers of options.workers) {
        const { names, cold, warm } = byWorkers.get(workers)!;
        names.forEach((name, i) =>
          rows.push(
            `${range[0].padEnd(4)} ${String(workers ?? 'default').padStart(7)}  ${name.padEnd(30)} cold ${ms(median(cold[i]!))} ms (max ${ms(Math.max(...cold[i]!))})   warm ${ms(median(warm[i]!))} ms (max ${ms(Math.max(...warm[i]!))})`,
          ),
        );
      }
    }
  } finally {
    copied.remove();
  }
  console.log(
    `load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${options.samples} fresh serve(s) per range and worker count; cold: each serve's first pass, warm: the ${options.passes - 1} after it; medians (and the slowest)`,
  );
  console.log(`range workers  request${' '.repeat(24)}`);
  for (const row of rows) console.log(row);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
