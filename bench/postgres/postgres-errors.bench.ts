import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { HivewatchEvent } from '../../core/base/events.js';
import type { HivewatchStore } from '../../core/store/contract.js';
import { POSTGRES_SCHEMA_VERSION } from '../../core/store/postgres/migrate.js';
import { openPostgresStore } from '../../core/store/postgres/store.js';
import { DAY } from '../../core/store/rollups/rollups.js';
import { prng } from '../../core/store/testing/journal-builder.js';
import { findPostgres, startPostgresCluster, type PostgresBinaries, type PostgresCluster } from '../../core/testing/postgres-cluster.js';
import { percentile, type Measurement } from '../harness/measure.js';
import { now, SPAN, START, Workload } from '../store/store-workload.js';

/**
 * The read figure on PostgreSQL: error counts by category and by origin over 1,000,000
 * stored errors (`--quick`: 100,000), for 24 h and 7 d windows ending at random instants, as
 * store.bench.ts measures them on SQLite: p50 / p95 of `store.errorCounts` (the shared rollup
 * query, in the store's read-only snapshot transaction) against a plain
 * `SELECT by, COUNT(*) FROM errors WHERE ts >= $1 AND ts < $2 GROUP BY by` on the same server
 * (every answer compared for equality): the ratio is what the rollups buy.
 *
 * The history is store.bench.ts's retry-storm workload (seed 23, 30 days), written through
 * `appendEvents` in the sink's batches of 1,000, then VACUUM ANALYZE (what autovacuum does to a
 * live database; a bulk load has no planner statistics yet). Generating 1,000,000 errors takes
 * minutes, so the cluster's data directory is kept under /tmp/hivewatch-bench/ and reused while
 * its key (size, seed, schema version, server version) matches; delete the directory to force a
 * new one.
 */

const CACHE_ROOT = '/tmp/hivewatch-bench';
const DATABASE = 'bench_errors';
const SEED = 23;
/** Bump when the generated history changes shape (workload, batching, post-load steps). */
const FORMAT = 1;

interface CacheKey {
  format: number;
  errors: number;
  seed: number;
  schema: number;
  postgres: string;
}

function log(message: string): void {
  if (process.env.HIVEWATCH_BENCH_VERBOSE) process.stderr.write(`[postgres errors bench] ${message}\n`);
}

function sameKey(path: string, key: CacheKey): boolean {
  if (!existsSync(path)) return false;
  try {
    return JSON.stringify(JSON.parse(readFileSync(path, 'utf8'))) === JSON.stringify(key);
  } catch {
    return false;
  }
}

/** Writes the retry-storm history until `errors` errors; returns the events written and the time taken. */
async function generate(store: HivewatchStore, errors: number): Promise<{ events: number; ms: number }> {
  const workload = new Workload(SEED, 'errorHeavy', 'storm', errors, SPAN / (errors / 22), 'history');
  let events = 0;
  const start = now();
  for (;;) {
    const batches: HivewatchEvent[][] = workload.take(50_000);
    if (batches.length === 0) break;
    for (const batch of batches) {
      await store.appendEvents(batch);
      events += batch.length;
    }
    log(`${events} events written in ${(now() - start).toFixed(0)} ms`);
  }
  return { events, ms: now() - start };
}

/** The cluster holding the history: the cached one when its key matches, else a new one filled now. */
async function historyCluster(
  binaries: PostgresBinaries,
  errors: number,
): Promise<{ cluster: PostgresCluster; generated: { events: number; ms: number } | null }> {
  const dir = join(CACHE_ROOT, `postgres-errors-${errors}`);
  const keyPath = join(dir, 'key.json');
  const key: CacheKey = { format: FORMAT, errors, seed: SEED, schema: POSTGRES_SCHEMA_VERSION, postgres: binaries.version };
  if (sameKey(keyPath, key)) {
    log(`reusing ${dir}`);
    return { cluster: await startPostgresCluster(binaries, { keepDataDir: join(dir, 'data') }), generated: null };
  }
  rmSync(dir, { recursive: true, force: true });
  const cluster = await startPostgresCluster(binaries, { keepDataDir: join(dir, 'data') });
  try {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    const store = await openPostgresStore({ url: cluster.url(DATABASE), recover: false, log: () => undefined });
    let generated: { events: number; ms: number };
    try {
      generated = await generate(store, errors);
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: cluster.url(DATABASE) });
    await client.connect();
    try {
      await client.query('VACUUM ANALYZE');
    } finally {
      await client.end();
    }
    // Written last: an interrupted generation leaves no key, so the next run starts over.
    writeFileSync(keyPath, `${JSON.stringify(key)}\n`);
    return { cluster, generated };
  } catch (error) {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

interface QueryTimes {
  store: number[];
  plain: number[];
}

const canonical = (pairs: [string, number][]): string => JSON.stringify(pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1)));

async function countQueries(
  store: HivewatchStore,
  plainClient: pg.Client,
  by: 'category' | 'origin',
  windowMs: number,
  storeQueries: number,
  plainQueries: number,
  seed: number,
): Promise<QueryTimes> {
  const random = prng(seed);
  const windows = Array.from({ length: storeQueries }, () => {
    const until = START + 8 * DAY + Math.floor(random() * (SPAN - 8 * DAY));
    return { since: until - windowMs, until };
  });
  const plain = (w: { since: number; until: number }): Promise<pg.QueryResult<Record<string, unknown>>> =>
    plainClient.query({
      name: `plain-${by}`,
      text: `SELECT ${by}, COUNT(*) AS n FROM errors WHERE ts >= $1 AND ts < $2 GROUP BY ${by}`,
      values: [w.since, w.until],
    });
  const times: QueryTimes = { store: [], plain: [] };
  const expected: string[] = [];
  for (const w of windows.slice(0, 10)) await store.errorCounts({ by, since: w.since, until: w.until }); // warm-up
  for (const w of windows) {
    const t = now();
    const rows = await store.errorCounts({ by, since: w.since, until: w.until });
    times.store.push(now() - t);
    expected.push(canonical(rows.map((r) => [r.key, r.count])));
  }
  for (const w of windows.slice(0, 3)) await plain(w); // warm-up
  for (const [i, w] of windows.slice(0, plainQueries).entries()) {
    const t = now();
    const { rows } = await plain(w);
    times.plain.push(now() - t);
    const got = canonical(rows.map((r) => [String(r[by]), Number(r.n)]));
    if (got !== expected[i])
      throw new Error(`PostgreSQL error counts by ${by} differ from a plain GROUP BY for [${w.since}, ${w.until}): ${expected[i]} vs ${got}`);
  }
  return times;
}

/**
 * The p95 target: 10 ms at 1,000,000 errors and at 10,000,000 (`--errors`). `--quick` (what CI runs, on shared machines) keeps a
 * bound of its own, 25 ms: p95 there measured 8–16 ms while neighbours ran, and a plain scan of
 * a 7 d window (what a lost rollup would fall back to) 49–65 ms, so the bound still catches that.
 */
const P95_TARGET_MS = 10;
const QUICK_P95_TARGET_MS = 25;

function queryMeasurement(by: string, windowLabel: string, errors: number, t: QueryTimes, quick: boolean): Measurement {
  const bound = quick ? QUICK_P95_TARGET_MS : P95_TARGET_MS;
  const p50 = percentile(t.store, 50);
  const p95 = percentile(t.store, 95);
  const plain50 = percentile(t.plain, 50);
  const plain95 = percentile(t.plain, 95);
  return {
    name: `PostgreSQL error counts by ${by}, ${windowLabel}, ${errors} errors: p95`,
    value: p95,
    unit: 'ms',
    baseline: plain50,
    ratio: plain50 / p50,
    target: quick ? `p95 ≤ ${bound} ms (--quick; ${P95_TARGET_MS} ms at 1,000,000 errors)` : `p95 ≤ ${bound} ms`,
    pass: p95 <= bound,
    note:
      `store p50 ${p50.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms, max ${Math.max(...t.store).toFixed(3)} ms (${t.store.length} queries); ` +
      `plain GROUP BY p50 ${plain50.toFixed(2)} ms, p95 ${plain95.toFixed(2)} ms (${t.plain.length} queries); ` +
      `ratio p50/p50 ${(plain50 / p50).toFixed(1)}×, p95/p95 ${(plain95 / p95).toFixed(1)}×`,
  };
}

/** `errors`: the history's size (`--errors N`, for the figure at 10,000,000); the full target holds at any size. */
export async function postgresErrorCountBenchmarks(options: { quick: boolean; errors?: number | undefined }): Promise<Measurement[]> {
  const { binaries, reason } = findPostgres();
  if (!binaries) return [{ name: 'PostgreSQL error counts', value: 0, unit: '', note: `skipped: ${reason}` }];
  const errorsWanted = options.errors ?? (options.quick ? 100_000 : 1_000_000);
  const { cluster, generated } = await historyCluster(binaries, errorsWanted);
  const out: Measurement[] = [];
  let store: HivewatchStore | null = null;
  const plainClient = new pg.Client({ connectionString: cluster.url(DATABASE) });
  try {
    store = await openPostgresStore({ url: cluster.url(DATABASE), recover: false, log: () => undefined });
    await plainClient.connect();
    const stats = await store.stats();
    const { rows } = await plainClient.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    const megabytes = Number(rows[0]?.bytes ?? 0) / 1_048_576;
    out.push({
      name: `PostgreSQL error history (${stats.errors} errors)`,
      value: generated ? (generated.events / generated.ms) * 1000 : 0,
      unit: generated ? 'events/s' : 'cached',
      note:
        (generated
          ? `generated now: ${generated.events} events through appendEvents (batches of 1000) in ${(generated.ms / 1000).toFixed(1)} s, then VACUUM ANALYZE`
          : `reused from ${CACHE_ROOT}/postgres-errors-${errorsWanted}`) + `; ${stats.events} events, ${stats.runs} runs, database ${megabytes.toFixed(0)} MB`,
    });
    for (const [label, windowMs, plainQueries] of [
      ['24 h window', DAY, 200],
      ['7 d window', 7 * DAY, 40],
    ] as const) {
      for (const by of ['category', 'origin'] as const) {
        const times = await countQueries(store, plainClient, by, windowMs, 200, plainQueries, by === 'category' ? 5 : 6);
        out.push(queryMeasurement(by, label, stats.errors, times, options.quick));
      }
    }
  } finally {
    await plainClient.end().catch(() => undefined);
    await store?.close();
    cluster.stop();
  }
  return out;
}
