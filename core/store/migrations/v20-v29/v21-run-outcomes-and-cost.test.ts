import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { seededRandom } from '../../../testing/seeded-random.js';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { randomJournals } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 21 on every engine: what its writers and triggers keep while a history is written
 * (attempts in pieces, failures after their spend, a prune) is exactly what its backfill computes
 * from the stored attempts and runs afterwards; and an attempt an older version stored with an
 * all-zero report leaves the usage tables, its run's and flow-day's sums with it.
 */

const { engines, start, stop } = testEngines('migration-21');
beforeAll(start, 60_000);
afterAll(stop);

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const TABLES = ['cost_rollups_hour', 'cost_rollups_day', 'run_outcomes_hour', 'run_outcomes_day', 'usage_days', 'run_usage', 'attempt_usage'] as const;

/** Every row as text, costs to a tenth of a micro-dollar (a backfill sums in another order than the writers did). */
async function snapshot(location: string): Promise<Record<string, string>[][]> {
  const out: Record<string, string>[][] = [];
  for (const table of TABLES) {
    const rows = await query(location, `SELECT * FROM ${table}`);
    const text = rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k.endsWith('cost_usd') && v !== null ? String(Math.round(Number(v) * 1e7)) : String(v)])),
    );
    out.push(text.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)));
  }
  return out;
}

function withUsage(events: readonly HivewatchEvent[], random: () => number): HivewatchEvent[] {
  return events.map((e) => {
    if ((e.type !== 'attemptSucceeded' && e.type !== 'attemptFailed') || random() < 0.25) return e;
    const priced = random() < 0.8;
    return {
      ...e,
      usage: {
        source: 'result',
        inputTokens: 1 + Math.floor(random() * 900),
        outputTokens: Math.floor(random() * 90),
        ...(priced ? { costUsd: Math.round(random() * 300) / 100 } : {}),
      },
    };
  });
}

describe.each(engines)('migration 21 on $name', (engine) => {
  it('backfills the cost and run-outcome rollups its writers keep, and drops all-zero reports', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 + 10 * DAY });
    const random = seededRandom(2121);
    for (const journal of randomJournals(2121, 60, { start: T0, spanMs: 10 * DAY, openShare: 0.1 })) {
      const events = withUsage(journal, random);
      const cut = 1 + Math.floor(random() * (events.length - 1));
      await store.appendEvents(events.slice(0, cut));
      await store.appendEvents(events.slice(cut));
    }
    expect((await store.prune({ olderThanMs: 7 * DAY })).runs).toBeGreaterThan(0);
    await store.close();
    const kept = await snapshot(location);
    expect(kept.slice(0, 5).every((rows) => rows.length > 0)).toBe(true);
    expect(kept[0]!.some((r) => r.outcome === 'failed') && kept[0]!.some((r) => r.outcome === 'retried')).toBe(true);

    await undoMigrationsAfter(location, 20);
    // What version 20's writer stored for a refused Claude Code request: a report of zeros, counted.
    const [victim] = await query(location, 'SELECT run_id, flow, wall FROM attempt_usage ORDER BY run_id, task_id, attempt LIMIT 1');
    const runId = String(victim!.run_id);
    const day = Math.floor(Number(victim!.wall) / DAY) * DAY;
    await query(
      location,
      `INSERT INTO attempt_usage (run_id, task_id, attempt, wall, flow, failed, counted, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, source)
      VALUES ('${runId}', 'zero-task', 1, ${Number(victim!.wall)}, '${String(victim!.flow)}', 1, 1, 0, 0, 0, 0, 0, 'result');
      UPDATE run_usage SET attempts = attempts + 1, failed_attempts = failed_attempts + 1 WHERE run_id = '${runId}';
      UPDATE usage_days SET attempts = attempts + 1, failed_attempts = failed_attempts + 1 WHERE flow = '${String(victim!.flow)}' AND day = ${day};`,
    );
    // Not recovered: the open runs' host is gone, and interrupting them now would add runs the first snapshot has not.
    const migrated = await openStore({ path: location, recover: false });
    await migrated.close();
    expect(await snapshot(location)).toEqual(kept);
  });
});
