import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { openStore } from '../../open.js';
import { JournalBuilder } from '../../testing/journal-builder.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';
import { FreshStatistics } from './fresh-statistics.js';

const T0 = Date.UTC(2026, 0, 1);

function runs(from: number, count: number): HivewatchEvent[] {
  const events: HivewatchEvent[] = [];
  for (let i = from; i < from + count; i++) {
    events.push(...new JournalBuilder(`run-${i}`, { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + i * 1_000 }).start().complete().events);
  }
  return events;
}

describe('FreshStatistics', () => {
  it('is due at the first threshold of runs written, then each time they double', () => {
    const due: number[] = [];
    const statistics = new FreshStatistics(() => {}, 10);
    for (let batch = 1; batch <= 20; batch++) if (statistics.committed(runs(batch * 3, 3))) due.push(batch * 3);
    // 3 runs a batch: due once 10 are written (12), then at 24 and at 48.
    expect(due).toEqual([12, 24, 48]);
  });

  it('counts runs, not events: a batch that starts none is never due', () => {
    const statistics = new FreshStatistics(() => {}, 1);
    const later = runs(0, 1).filter((e) => e.type !== 'runStarted');
    expect(statistics.committed(later)).toBe(false);
  });
});

describe.skipIf(!postgresBinaries)(skipTitle('planner statistics after an import', postgresMissing), () => {
  const bases = new TestDatabases();
  beforeAll(async () => bases.start(), 120_000);
  afterAll(async () => bases.stop());

  it('a store that wrote its first 1,000 runs leaves the runs table analysed, not waiting for autovacuum', async () => {
    const location = await bases.fresh('fresh_statistics');
    const store = await openStore({ path: location, recover: false });
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    // last_analyze is a manual ANALYZE's time (autovacuum's is last_autoanalyze).
    const analysed = async (): Promise<boolean> =>
      (await client.query("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'runs'")).rows[0]?.last_analyze != null;
    try {
      await store.appendEvents(runs(0, 999));
      expect(await analysed()).toBe(false);
      await store.appendEvents(runs(999, 1));
      expect(await analysed()).toBe(true);
    } finally {
      await client.end();
      await store.close();
    }
  }, 120_000);
});
