import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { randomJournals } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 22 on every engine: the issue failure tables its triggers keep while a history is
 * written (ingest, run ends that settle occurrences into ending errors, prune) are exactly what
 * its backfill computes from the errors afterwards, and the store's aggregate check finds them
 * equal to counting the ending occurrences.
 */

const { engines, start, stop } = testEngines('migration-22');
beforeAll(start, 60_000);
afterAll(stop);

const SEED = 2_022;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const TABLES = ['error_group_failure_hour', 'error_group_failure_day'] as const;

async function failureTables(location: string): Promise<Record<string, string>[][]> {
  const out: Record<string, string>[][] = [];
  // As text: PostgreSQL's BIGINT comes back as a string, SQLite's INTEGER as a number.
  for (const table of TABLES) {
    const rows = await query(location, `SELECT * FROM ${table} ORDER BY 1, 2, 3`);
    out.push(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]))));
  }
  return out;
}

describe.each(engines)('migration 22 on $name', (engine) => {
  it(`keeps each issue's failures per hour and day as the ending errors say, and backfills the same (seed ${SEED})`, async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 + 10 * DAY });
    for (const journal of randomJournals(SEED, 120, { start: T0, spanMs: 10 * DAY })) await store.appendEvents(journal);
    const pruned = await store.prune({ olderThanMs: 5 * DAY });
    expect(pruned.errors).toBeGreaterThan(0);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    await store.close();
    const kept = await failureTables(location);
    expect(kept.map((rows) => rows.length).every((n) => n > 0)).toBe(true);
    const endings = await query(location, 'SELECT COUNT(*) AS n FROM errors WHERE ending = 1');
    expect(kept[0]!.reduce((n, r) => n + Number(r.count), 0)).toBe(Number(endings[0]!.n));

    await undoMigrationsAfter(location, 20);
    const migrated = await openStore({ path: location });
    expect((await migrated.verifyAggregates()).diffs).toEqual([]);
    await migrated.close();
    expect(await failureTables(location)).toEqual(kept);
  });
});
