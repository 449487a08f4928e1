import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { apiOf, startServe, stopServe, type Api, type Serve } from './serve.js';

/**
 * Where the Errors screen's time goes: each API request the screen makes for
 * a range, timed one at a time against a fresh `hivewatch serve` on a copy of a history file
 * (serve writes to it; the copy keeps the original as it was generated). The first pass on a
 * fresh serve is the cold figure, a second pass right after the warm one.
 *
 *   node dist-dev/bench/ui/errors-requests.js <history.db> [--passes N] [--filter flow=…] [--range 30d]…
 *
 * The requests mirror renderer/errors/errors-loads.ts, IssuesPanel.tsx and FailureCost.tsx; the
 * window sends them at once, so the screen waits for about the slowest of them (on 2 cores,
 * somewhat more).
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

export async function main(argv: readonly string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: { passes: { type: 'string', default: '2' }, filter: { type: 'string', default: '' }, range: { type: 'string', multiple: true } },
  });
  const source = positionals[0];
  if (source === undefined) throw new Error('usage: errors-requests.js <history.db> [--passes N] [--filter name=value] [--range 1h|24h|7d|30d|all]…');
  const passes = Math.max(2, Number(values.passes) || 2);
  const filter = values.filter === '' ? '' : new URLSearchParams([values.filter.split('=', 2) as [string, string]]).toString();
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-errors-requests-'));
  const rows: string[] = [];
  try {
    for (const [range, span, bucket] of RANGES) {
      if (values.range !== undefined && !values.range.includes(range)) continue;
      const copy = join(dir, `${range}.db`);
      copyFileSync(source, copy);
      let serve: Serve | null = null;
      try {
        serve = await startServe(copy);
        const api = apiOf(serve.url);
        const now = Math.ceil(Date.now() / 60_000) * 60_000;
        const requests = requestsFor(span === null ? null : now - span, bucket, now, filter);
        const figures = new Map<string, number[]>(requests.map((r) => [r.name, []]));
        for (let pass = 0; pass < passes; pass++) {
          for (const request of requests) figures.get(request.name)?.push(await timed(api, request.path));
        }
        for (const request of requests) {
          const [cold = 0, ...warm] = figures.get(request.name) ?? [];
          rows.push(
            `${range.padEnd(4)} ${request.name.padEnd(22)} cold ${cold.toFixed(0).padStart(6)} ms   warm ${Math.max(...warm)
              .toFixed(0)
              .padStart(6)} ms`,
          );
        }
      } finally {
        await stopServe(serve);
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`range request                cold (first on a fresh serve) / warm (slowest of ${passes - 1} more)`);
  for (const row of rows) console.log(row);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
