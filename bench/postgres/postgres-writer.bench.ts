import pg from 'pg';
import type { HivewatchEvent } from '../../core/base/events.js';
import { createPostgresPool, postgresConfig } from '../../core/store/postgres/connection/connection.js';
import { migratePostgres } from '../../core/store/postgres/migrate.js';
import { writeRows } from '../../core/store/postgres/writer/multi-row.js';
import { inTransaction } from '../../core/store/postgres/connection/transaction.js';
import { PostgresJournalWriter } from '../../core/store/postgres/writer/writer.js';
import { randomJournals } from '../../core/store/testing/journal-builder.js';
import { findPostgres, startPostgresCluster } from '../../core/testing/postgres-cluster.js';
import type { Measurement } from '../harness/measure.js';

/**
 * The ingest figures for the PostgreSQL write path, on a throwaway cluster:
 * - the writer (reduce + upserts + commit positions, one transaction per batch of 1,000) against
 *   raw batched INSERTs of the same final rows of every table, in as many transactions, into an
 *   empty database of the same server (goal ≥ 0.6×), the median of three paired trials;
 * - events/s with 4 hosts (4 pools, 4 writers) writing their own runs at once, and its ratio to
 *   one host in the same run.
 * The cluster runs with fsync off (core/testing/postgres-cluster.ts): figures compare CPU and
 * round trips, not disks.
 */

/**
 * The goal: the writer at ≥ 0.6× raw INSERTs of the same rows. `--quick` (17 batches, what CI runs)
 * keeps a bound of its own, 0.5×: quiet, this machine measured 0.59–0.66 per trial in it before
 * the batch's literals were written by native replaces (statement-batch.ts), 0.65–0.78 since; the
 * regression it exists to catch (a scalar subquery per event row, against the one-round-trip
 * batch) read 0.28–0.33, so the bound still catches that kind.
 */
const RATIO_TARGET = 0.6;
const QUICK_RATIO_TARGET = 0.5;

const TABLES = [
  'runs',
  'steps',
  'tasks',
  'attempts',
  'errors',
  'checkpoints',
  'error_rollups',
  'error_rollups_hour',
  'error_rollups_day',
  'error_group_trend_hour',
  'error_group_trend_day',
  'error_groups',
  'run_hosts',
  'events',
];

/** Every event of `runs` random runs, merged in time order (each run's own order kept), in batches of 1,000. */
function batchesOf(seed: number, runs: number): HivewatchEvent[][] {
  const events = randomJournals(seed, runs, { spanMs: 7 * 86_400_000 }).flat();
  events.sort((a, b) => a.ts - b.ts || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : a.seq - b.seq));
  const batches: HivewatchEvent[][] = [];
  for (let i = 0; i < events.length; i += 1_000) batches.push(events.slice(i, i + 1_000));
  return batches;
}

async function writeAll(pool: pg.Pool, host: string, batches: readonly HivewatchEvent[][]): Promise<void> {
  const writer = new PostgresJournalWriter({ pid: 1, hostname: host, instance: host }, Date.now);
  for (const batch of batches) await inTransaction(pool, (client) => writer.append(client, batch));
}

/**
 * The rows the writer left, table by table, written again as plain INSERTs in `transactions`
 * transactions: each transaction takes a share of the runs with all their rows (the foreign keys
 * hold at each commit) and an even share of the rows of the other tables.
 */
async function rawInsert(from: pg.Pool, to: pg.Pool, transactions: number): Promise<number> {
  const tables: { table: string; columns: string[]; shares: unknown[][][] }[] = [];
  const slotOfRun = new Map<string, number>();
  for (const table of TABLES) {
    const { rows, fields } = await from.query<unknown[]>({ text: `SELECT * FROM ${table} ORDER BY 1`, rowMode: 'array' });
    const columns = fields.map((f) => f.name);
    const shares: unknown[][][] = Array.from({ length: transactions }, () => []);
    const runColumn = table === 'runs' ? 0 : columns.indexOf('run_id');
    rows.forEach((row, i) => {
      let slot = Math.floor((i * transactions) / rows.length);
      if (table === 'runs') slotOfRun.set(row[0] as string, slot);
      else if (runColumn >= 0) slot = slotOfRun.get(row[runColumn] as string) ?? slot;
      shares[slot]!.push(row);
    });
    tables.push({ table, columns, shares });
  }
  const start = performance.now();
  for (let t = 0; t < transactions; t += 1) {
    await inTransaction(to, async (client) => {
      for (const { table, columns, shares } of tables) {
        const chunk = shares[t]!;
        if (chunk.length > 0) await writeRows(client, { head: `INSERT INTO ${table} (${columns.join(', ')})`, tail: '', width: columns.length }, chunk);
      }
    });
  }
  return performance.now() - start;
}

export async function postgresWriterBenchmarks(options: { quick: boolean }): Promise<Measurement[]> {
  const { binaries, reason } = findPostgres();
  if (!binaries) return [{ name: 'PostgreSQL ingest', value: 0, unit: '', note: `skipped: ${reason}` }];
  const cluster = await startPostgresCluster(binaries);
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  const pools: pg.Pool[] = [];
  const database = async (name: string): Promise<string> => {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = cluster.url(name);
    const pool = createPostgresPool(postgresConfig(url, {}), { max: 2 });
    pools.push(pool);
    await migratePostgres(pool);
    return url;
  };
  const poolOf = (url: string): pg.Pool => {
    const pool = createPostgresPool(postgresConfig(url, {}), { max: 2 });
    pools.push(pool);
    return pool;
  };
  try {
    const runs = options.quick ? 400 : 4_000;
    const one = batchesOf(1, runs);
    const events = one.reduce((n, b) => n + b.length, 0);
    // Three paired trials (writer, then raw into a fresh database), the median ratio judged: one
    // pair of 17 transactions in --quick was at the mercy of a neighbour's burst on this 2-core machine.
    const trials: { writerMs: number; rawMs: number }[] = [];
    for (let trial = 0; trial < 3; trial += 1) {
      const single = poolOf(await database(`writer_one_${trial}`));
      const start = performance.now();
      await writeAll(single, 'one', one);
      const writerMs = performance.now() - start;
      trials.push({ writerMs, rawMs: await rawInsert(single, poolOf(await database(`raw_rows_${trial}`)), one.length) });
    }
    const ratios = trials.map((t) => t.rawMs / t.writerMs).sort((a, b) => a - b);
    const ratio = ratios[1] as number;
    const { writerMs, rawMs } = trials.find((t) => t.rawMs / t.writerMs === ratio) as { writerMs: number; rawMs: number };

    const hosts = [2, 3, 4, 5].map((seed) => batchesOf(seed, runs / 4).map((batch) => batch.map((e) => ({ ...e, runId: `h${seed}-${e.runId}` }))));
    const hostEvents = hosts.reduce((n, h) => n + h.reduce((m, b) => m + b.length, 0), 0);
    const shared = await database('four_hosts');
    const start = performance.now();
    await Promise.all(hosts.map((batches, i) => writeAll(poolOf(shared), `host-${i}`, batches)));
    const fourMs = performance.now() - start;

    const oneRate = (events / writerMs) * 1000;
    const fourRate = (hostEvents / fourMs) * 1000;
    return [
      {
        name: `PostgreSQL writer ingest, batches of 1000 (${events} events)`,
        value: oneRate,
        unit: 'events/s',
        baseline: (events / rawMs) * 1000,
        ratio,
        target: options.quick
          ? `≥ ${QUICK_RATIO_TARGET}× raw INSERTs of the same rows (--quick; ${RATIO_TARGET}× in the full run)`
          : `≥ ${RATIO_TARGET}× raw INSERTs of the same rows`,
        pass: ratio >= (options.quick ? QUICK_RATIO_TARGET : RATIO_TARGET),
        note:
          `median of 3 paired trials (ratios ${ratios.map((r) => r.toFixed(3)).join(', ')}); in it writer ${writerMs.toFixed(0)} ms, ` +
          `raw batched INSERTs of its final rows ${rawMs.toFixed(0)} ms (${one.length} transactions each)`,
      },
      {
        name: `PostgreSQL writer ingest, 4 hosts at once (${hostEvents} events)`,
        value: fourRate,
        unit: 'events/s',
        baseline: oneRate,
        ratio: fourRate / oneRate,
        note: 'ratio against one host in this run (2 cores: the server and the four writers share them)',
      },
    ];
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await admin.end();
    cluster.stop();
  }
}
