import type { BatchAggregates, GroupDelta } from '../../rollups/batch-aggregates.js';
import { FAILURE_KEY, FAILURE_ROLLUP_TABLE, failureParams, type FailureDeltas } from '../../rollups/failure-rollups.js';
import {
  GRAINS,
  GROUP_TREND_GRAINS,
  GROUP_TREND_TABLE,
  parseGroupTrendKey,
  parseRollupKey,
  ROLLUP_TABLE,
  type BatchRollups,
  type GrainDeltas,
} from '../../rollups/rollups.js';
import { byKey, writeRows, type MultiRow, type Queryable } from './multi-row.js';

/**
 * Rollup, group-trend and error-group changes on PostgreSQL. Every change is an atomic upsert
 * that adds to the stored count (`count = t.count + excluded.count`), never a read followed by a
 * write, so hosts committing at the same time never lose each other's increments. Rows are sent
 * sorted by key: every writer then locks the shared rollup rows in one order, and two batches
 * touching the same buckets wait for each other instead of deadlocking.
 */

const ROLLUP_KEY = ['bucket', 'category', 'origin', 'code', 'flow', 'disposition'] as const;
const TREND_KEY = ['fingerprint', 'bucket', 'flow', 'disposition'] as const;

function adding(table: string, key: readonly string[]): MultiRow {
  return {
    head: `INSERT INTO ${table} AS t (${key.join(', ')}, count)`,
    tail: `ON CONFLICT (${key.join(', ')}) DO UPDATE SET count = t.count + excluded.count`,
    width: key.length + 1,
  };
}

async function addRows(client: Queryable, shape: MultiRow, rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  rows.sort(byKey(shape.width - 1));
  await writeRows(client, shape, rows);
}

/**
 * One ingest batch's changes: one statement per grain and table. Counts are signed (an occurrence
 * settled by its run's end leaves its pending key), and rows a negative change empties are deleted.
 */
export async function addBatchAggregates(client: Queryable, batch: BatchAggregates): Promise<void> {
  await addBatchRollups(client, batch.rollups);
  await addGroups(client, batch.groups.values());
  await addFailures(client, batch.failures);
}

async function addBatchRollups(client: Queryable, batch: BatchRollups): Promise<void> {
  if (batch.size === 0) return;
  for (const grain of GRAINS) {
    const rows: unknown[][] = [];
    for (const e of batch.entries(grain)) if (e.count !== 0) rows.push([e.bucket, e.category, e.origin, e.code, e.flow, e.disposition, e.count]);
    await addRows(client, adding(ROLLUP_TABLE[grain], ROLLUP_KEY), rows);
    await deleteEmpty(
      client,
      ROLLUP_TABLE[grain],
      ROLLUP_KEY,
      rows.filter((r) => (r[6] as number) < 0),
    );
  }
  for (const grain of GROUP_TREND_GRAINS) {
    const rows: unknown[][] = [];
    for (const e of batch.trends(grain)) if (e.count !== 0) rows.push([e.fingerprint, e.bucket, e.flow, e.disposition, e.count]);
    await addRows(client, adding(GROUP_TREND_TABLE[grain], TREND_KEY), rows);
    await deleteEmpty(
      client,
      GROUP_TREND_TABLE[grain],
      TREND_KEY,
      rows.filter((r) => (r[4] as number) < 0),
    );
  }
}

/** Failure-rollup changes (+1 a run that ended failed, -1 a pruned one), sorted like every other rollup write. */
export async function addFailures(client: Queryable, deltas: FailureDeltas): Promise<void> {
  if (deltas.size === 0) return;
  for (const grain of GRAINS) {
    const rows = deltas.entries(grain).map(failureParams);
    await addRows(client, adding(FAILURE_ROLLUP_TABLE[grain], FAILURE_KEY), rows);
    await deleteEmpty(
      client,
      FAILURE_ROLLUP_TABLE[grain],
      FAILURE_KEY,
      rows.filter((r) => (r[FAILURE_KEY.length] as number) < 0),
    );
  }
}

/**
 * Signed deltas (prune subtracts): added atomically like a batch, then the rows a negative delta
 * brought to zero are deleted, as SQLite's RollupWriter does.
 */
export async function applyRollupDeltas(client: Queryable, deltas: GrainDeltas): Promise<void> {
  for (const grain of GRAINS) {
    const rows: unknown[][] = [];
    for (const [text, delta] of deltas[grain]) {
      if (delta === 0) continue;
      const k = parseRollupKey(text);
      rows.push([k.bucket, k.category, k.origin, k.code, k.flow, k.disposition, delta]);
    }
    await addRows(client, adding(ROLLUP_TABLE[grain], ROLLUP_KEY), rows);
    await deleteEmpty(
      client,
      ROLLUP_TABLE[grain],
      ROLLUP_KEY,
      rows.filter((r) => (r[6] as number) < 0),
    );
  }
  for (const grain of GROUP_TREND_GRAINS) {
    const rows: unknown[][] = [];
    for (const [text, delta] of grain === 'hour' ? deltas.trendHour : deltas.trendDay) {
      if (delta === 0) continue;
      const k = parseGroupTrendKey(text);
      rows.push([k.fingerprint, k.bucket, k.flow, k.disposition, delta]);
    }
    await addRows(client, adding(GROUP_TREND_TABLE[grain], TREND_KEY), rows);
    await deleteEmpty(
      client,
      GROUP_TREND_TABLE[grain],
      TREND_KEY,
      rows.filter((r) => (r[4] as number) < 0),
    );
  }
}

/** Deletes the rows of these keys whose count is no longer positive (one statement per table). */
async function deleteEmpty(client: Queryable, table: string, key: readonly string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const shape: MultiRow = {
    head: `DELETE FROM ${table} AS t USING (`,
    // The VALUES list's columns have no type of their own: each is compared as the table's column.
    tail: `) AS d (${key.join(', ')}) WHERE ${key.map((k) => `t.${k} = d.${k}::${typeOf(k)}`).join(' AND ')} AND t.count <= 0`,
    width: key.length,
  };
  await writeRows(
    client,
    shape,
    rows.map((r) => r.slice(0, key.length)),
  );
}

function typeOf(column: string): string {
  return column === 'bucket' ? 'bigint' : 'text';
}

const GROUP_COLUMNS = ['fingerprint', 'category', 'code', 'origin', 'template', 'last_message', 'count', 'unhandled', 'first_seen', 'last_seen'];

const ADD_GROUPS: MultiRow = {
  head: `INSERT INTO error_groups AS t (${GROUP_COLUMNS.join(', ')})`,
  tail: `ON CONFLICT (fingerprint) DO UPDATE SET
    count = t.count + excluded.count,
    unhandled = t.unhandled + excluded.unhandled,
    first_seen = LEAST(t.first_seen, excluded.first_seen),
    last_message = CASE WHEN excluded.last_seen >= t.last_seen THEN excluded.last_message ELSE t.last_message END,
    last_seen = GREATEST(t.last_seen, excluded.last_seen)`,
  width: GROUP_COLUMNS.length,
};

/** A batch's error-group contributions, one atomic upsert for all of them. */
async function addGroups(client: Queryable, groups: Iterable<GroupDelta>): Promise<void> {
  const rows: unknown[][] = [];
  for (const g of groups) rows.push([g.fingerprint, g.category, g.code, g.origin, g.template, g.lastMessage, g.count, g.unhandled, g.firstSeen, g.lastSeen]);
  await addRows(client, ADD_GROUPS, rows);
}
