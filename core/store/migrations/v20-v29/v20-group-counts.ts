import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import { GROUP_COUNT_TABLE, GROUP_FLOW_COUNT_TABLE, GROUP_TREND_GRAINS, GROUP_TREND_TABLE, type GroupTrendGrain } from '../../rollups/rollups.js';
import type { Migration } from '../migration.js';

/**
 * Version 20 (the Errors screen's sparklines at a million errors): each group's
 * counts per hour and day without the trend tables' flow and disposition keys.
 *
 * - `error_group_count_{hour,day}`: (fingerprint, bucket) → count, every flow and disposition
 *   summed. The sparklines of an unfiltered 30-day window read one row per group and hour
 *   (30,282 rows at 1,000,000 errors) instead of one per group, hour, flow and disposition
 *   (234,647): 7 ms instead of 57 ms, measured on that history (docs/benches.md).
 * - `error_group_flow_count_{hour,day}`: (flow, fingerprint, bucket) → count, dispositions
 *   summed. A flow filter reads that flow's rows only; in the trend table it is the third key
 *   column, so the read visited every flow's rows and kept a fifth.
 *
 * Both are kept by triggers on the trend tables, so every writer of a trend row (the rollup
 * writer, PostgreSQL's batch upserts, prune, settling history, the bench's bulk seed) keeps them
 * equal to the trend tables' sums without knowing they exist. A row whose count falls to 0 is
 * deleted, as the writers delete empty trend rows. Backfilled here from the trend tables. The
 * PostgreSQL part below runs `groupCountsSql(Dialect.postgres)`.
 */

type Side = 'old' | 'new';

interface CountTable {
  name: string;
  key: readonly string[];
}

const countTables = (grain: GroupTrendGrain): CountTable[] => [
  { name: GROUP_COUNT_TABLE[grain], key: ['fingerprint', 'bucket'] },
  { name: GROUP_FLOW_COUNT_TABLE[grain], key: ['flow', 'fingerprint', 'bucket'] },
];

function tableSql(dialect: Dialect, table: CountTable): string {
  const pg = dialect === Dialect.postgres;
  const type = (column: string): string => (column === 'bucket' ? (pg ? 'BIGINT' : 'INTEGER') : pg ? 'TEXT COLLATE "C"' : 'TEXT');
  const columns = table.key.map((column) => `${column} ${type(column)} NOT NULL`).join(', ');
  return `CREATE TABLE ${table.name} (${columns}, count ${pg ? 'BIGINT' : 'INTEGER'} NOT NULL, PRIMARY KEY (${table.key.join(', ')}))${pg ? '' : ' WITHOUT ROWID'}`;
}

function backfillSql(grain: GroupTrendGrain, table: CountTable): string {
  const key = table.key.join(', ');
  return `INSERT INTO ${table.name} (${key}, count)
    SELECT ${key}, SUM(count) FROM ${GROUP_TREND_TABLE[grain]} GROUP BY ${key} HAVING SUM(count) <> 0`;
}

/** Adds `count` of a trend row (its old or new side) to a count table, then drops the row if it became 0. */
function bumpSql(dialect: Dialect, table: CountTable, side: Side, sign: 1 | -1): string {
  const row = dialect === Dialect.postgres ? side.toUpperCase() : side;
  const key = table.key.join(', ');
  const values = table.key.map((column) => `${row}.${column}`).join(', ');
  const match = table.key.map((column) => `${column} = ${row}.${column}`).join(' AND ');
  const by = `${sign === 1 ? '' : '-'}${row}.count`;
  // SQLite refuses a qualified column in a trigger's upsert; PostgreSQL needs one (plpgsql would
  // read a bare `count` as ambiguous with the excluded row's).
  const stored = dialect === Dialect.postgres ? `${table.name}.count` : 'count';
  return `INSERT INTO ${table.name} (${key}, count) VALUES (${values}, ${by})
      ON CONFLICT (${key}) DO UPDATE SET count = ${stored} + excluded.count;
    DELETE FROM ${table.name} WHERE ${match} AND count = 0;`;
}

function sqliteTriggers(grain: GroupTrendGrain): string {
  const trend = GROUP_TREND_TABLE[grain];
  const bumps = (side: Side, sign: 1 | -1): string =>
    countTables(grain)
      .map((t) => bumpSql(Dialect.sqlite, t, side, sign))
      .join('\n');
  return `
  CREATE TRIGGER ${trend}_counts_insert AFTER INSERT ON ${trend} BEGIN
    ${bumps('new', 1)}
  END;
  CREATE TRIGGER ${trend}_counts_delete AFTER DELETE ON ${trend} BEGIN
    ${bumps('old', -1)}
  END;
  CREATE TRIGGER ${trend}_counts_update AFTER UPDATE ON ${trend} BEGIN
    ${bumps('old', -1)}
    ${bumps('new', 1)}
  END;`;
}

function postgresTriggers(grain: GroupTrendGrain): string {
  const trend = GROUP_TREND_TABLE[grain];
  const bumps = (side: Side, sign: 1 | -1): string =>
    countTables(grain)
      .map((t) => bumpSql(Dialect.postgres, t, side, sign))
      .join('\n');
  // One function per trend table (their count tables differ). The writers send trend rows sorted
  // by key (fingerprint, bucket, flow, disposition); a count row's key is made of the leading
  // three, so all the trend rows that feed one count row sort together, and concurrent writers
  // touch the count rows in one order too (no deadlock where they meet).
  return `
  CREATE FUNCTION hivewatch_${trend}_counts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      ${bumps('old', -1)}
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      ${bumps('new', 1)}
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER ${trend}_counts AFTER INSERT OR UPDATE OR DELETE ON ${trend} FOR EACH ROW EXECUTE FUNCTION hivewatch_${trend}_counts();`;
}

/** Migration 20's statements for one engine, in order. */
function groupCountsSql(dialect: Dialect): string[] {
  return GROUP_TREND_GRAINS.flatMap((grain) => [
    ...countTables(grain).flatMap((table) => [tableSql(dialect, table), backfillSql(grain, table)]),
    dialect === Dialect.postgres ? postgresTriggers(grain) : sqliteTriggers(grain),
  ]);
}

function groupCounts(db: Database.Database): void {
  for (const sql of groupCountsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 20,
  name: "group counts per hour and day, over every flow and per flow: the sparklines' reads",
  sqlite: groupCounts,
  // On PostgreSQL: the same tables and backfill, plpgsql triggers.
  postgres: async (client) => {
    for (const sql of groupCountsSql(Dialect.postgres)) await client.query(sql);
  },
};
