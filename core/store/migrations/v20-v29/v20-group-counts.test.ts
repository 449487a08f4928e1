import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { randomJournals } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 20 on every engine: the group count tables its triggers keep while a history is
 * written (ingest, settled endings, prune) are exactly what its backfill computes from the trend
 * tables afterwards, and the store's aggregate check finds them equal to the trend tables' sums.
 */

const { engines, start, stop } = testEngines('migration-20');
beforeAll(start, 60_000);
afterAll(stop);

const SEED = 2_020;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const TABLES = ['error_group_count_hour', 'error_group_count_day', 'error_group_flow_count_hour', 'error_group_flow_count_day'] as const;

async function countTables(location: string): Promise<Record<string, string>[][]> {
  const out: Record<string, string>[][] = [];
  // As text: PostgreSQL's BIGINT comes back as a string, SQLite's INTEGER as a number.
  for (const table of TABLES) {
    const rows = await query(location, `SELECT * FROM ${table} ORDER BY 1, 2, 3`);
    out.push(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]))));
  }
  return out;
}

describe.each(engines)('migration 20 on $name', (engine) => {
  it(`keeps each group's counts per bucket and per flow equal to the trend tables, and backfills the same (seed ${SEED})`, async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 + 10 * DAY });
    for (const journal of randomJournals(SEED, 80, { start: T0, spanMs: 10 * DAY })) await store.appendEvents(journal);
    // A prune takes occurrences back out of the trend rows: the triggers subtract them too.
    const pruned = await store.prune({ olderThanMs: 5 * DAY });
    expect(pruned.errors).toBeGreaterThan(0);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    await store.close();
    const kept = await countTables(location);
    expect(kept.map((rows) => rows.length).every((n) => n > 0)).toBe(true);
    expect(kept[2]!.length).toBeGreaterThan(kept[0]!.length);

    await undoMigrationsAfter(location, 19);
    const migrated = await openStore({ path: location });
    expect((await migrated.verifyAggregates()).diffs).toEqual([]);
    await migrated.close();
    expect(await countTables(location)).toEqual(kept);
  });
});
