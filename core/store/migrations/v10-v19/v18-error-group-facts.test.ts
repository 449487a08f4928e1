import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { randomJournals } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 18 on every engine: its backfill of the issue fact tables from stored errors gives
 * exactly what its triggers keep while the same history is written (ingest, settled endings).
 * The history is written once with the triggers, the tables read; then the tables and triggers
 * are dropped, the version set back to 17, and opening the store migrates again. The later
 * migrations are undone first, since going back to 17 makes the store apply them again.
 */

const { engines, start, stop } = testEngines('migration-18');
beforeAll(start, 60_000);
afterAll(stop);

const SEED = 1_818;
const TABLES = ['error_group_runs', 'error_group_flows', 'error_group_stats'] as const;
async function factTables(location: string): Promise<Record<string, unknown>[][]> {
  const out: Record<string, unknown>[][] = [];
  // Numbers as text: PostgreSQL's BIGINT comes back as a string, SQLite's INTEGER as a number.
  for (const table of TABLES)
    out.push((await query(location, `SELECT * FROM ${table} ORDER BY 1, 2`)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]))));
  return out;
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

    await undoMigrationsAfter(location, 17);
    const migrated = await openStore({ path: location });
    await migrated.close();
    expect(await factTables(location)).toEqual(kept);
  });
});
