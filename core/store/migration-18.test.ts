import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { randomJournals } from './testing/journal-builder.js';

/**
 * Migration 18 on every engine: its backfill of the issue fact tables from stored errors gives
 * exactly what its triggers keep while the same history is written (ingest, settled endings).
 * The history is written once with the triggers, the tables read; then the tables and triggers
 * are dropped, the version set back to 17, and opening the store migrates again. Migration 19
 * (the run counts per hour) is undone first, since going back to 17 makes the store apply it again.
 */

const { engines, start, stop } = testEngines('migration-18');
beforeAll(start, 60_000);
afterAll(stop);

const SEED = 1_818;
const TABLES = ['error_group_runs', 'error_group_flows', 'error_group_stats'] as const;
const isPostgres = (location: string): boolean => location.startsWith('postgres');

async function query(location: string, sql: string): Promise<Record<string, unknown>[]> {
  if (!isPostgres(location)) {
    const db = new Database(location);
    try {
      return db.prepare(sql).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function factTables(location: string): Promise<Record<string, unknown>[][]> {
  const out: Record<string, unknown>[][] = [];
  // Numbers as text: PostgreSQL's BIGINT comes back as a string, SQLite's INTEGER as a number.
  for (const table of TABLES) out.push((await query(location, `SELECT * FROM ${table} ORDER BY 1, 2`)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]))));
  return out;
}

async function undoMigration18(location: string): Promise<void> {
  if (isPostgres(location)) {
    await query(location, `DROP FUNCTION hivewatch_run_counts_hourly() CASCADE; DROP TABLE run_counts_hourly; DROP INDEX runs_flow_by_name;
      DROP FUNCTION hivewatch_error_group_facts() CASCADE; DROP TABLE ${TABLES.join(', ')}; DELETE FROM schema_version WHERE version IN (18, 19)`);
    return;
  }
  const db = new Database(location);
  try {
    db.exec(`DROP TRIGGER run_counts_hourly_insert; DROP TRIGGER run_counts_hourly_delete; DROP TRIGGER run_counts_hourly_update;
      DROP TABLE run_counts_hourly; DROP INDEX runs_flow_by_name;
      DROP TRIGGER error_group_facts_insert; DROP TRIGGER error_group_facts_delete; DROP TRIGGER error_group_facts_update;
      ${TABLES.map((t) => `DROP TABLE ${t};`).join(' ')}`);
    db.pragma('user_version = 17');
  } finally {
    db.close();
  }
}

describe.each(engines)('migration 18 on $name', (engine) => {
  it(`backfills the issue facts its triggers keep (seed ${SEED})`, async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location });
    for (const journal of randomJournals(SEED, 80)) await store.appendEvents(journal);
    await store.close();
    const kept = await factTables(location);
    expect(kept.map((rows) => rows.length).every((n) => n > 0)).toBe(true);
    expect(kept[2]?.some((row) => row.failures !== '0')).toBe(true);

    await undoMigration18(location);
    const migrated = await openStore({ path: location });
    await migrated.close();
    expect(await factTables(location)).toEqual(kept);
  });
});
