import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../sqlite/database.js';
import { JournalWriter } from '../../sqlite/journal-writer.js';
import { migrate } from '../../sqlite/migrate.js';
import { prune } from '../../maintenance/prune.js';
import { JournalBuilder, randomJournals } from '../../testing/journal-builder.js';
import { prunePg } from './prune.js';
import { bothTables, inTransaction, postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { PostgresJournalWriter } from '../writer/writer.js';
import { skipTitle } from '../../../testing/skip.js';

const bases = new TestDatabases();
const start = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

/** Three days of runs, and a late run resumed from the first (old) one, which prune must keep. */
function history(): ReturnType<typeof randomJournals> {
  const journals = randomJournals(21, 60, { start, spanMs: 3 * DAY, openShare: 0.1 });
  const source = journals[0]![0]!.runId;
  journals.push(new JournalBuilder('resumed', { start: start + 3 * DAY, resumedFrom: source, resumeStep: 1 }).start().complete().events);
  return journals;
}

describe.skipIf(!postgresBinaries)(skipTitle('prunePg', postgresMissing), () => {
  beforeAll(async () => bases.start());
  afterEach(async () => bases.endPools());
  afterAll(async () => bases.stop());

  it("leaves exactly what SQLite's prune leaves (rows, rollups, groups) and reports the same", async () => {
    const pool = bases.pool(await bases.fresh('same_prune'));
    const owner = testOwner('p');
    const now = (): number => start + 4 * DAY;
    const events = history().flat();
    const db = openDatabase({ path: ':memory:' });
    migrate(db);
    new JournalWriter(db, owner, now).append(events);
    await inTransaction(pool, (c) => new PostgresJournalWriter(owner, now).append(c, events));

    const options = { olderThanMs: 2 * DAY };
    const expected = prune(db, now, options);
    expect(expected.runs).toBeGreaterThan(10);
    expect(expected.keptForResume).toBe(1);
    expect(await prunePg(pool, now, options)).toEqual(expected);
    for (const { table, postgres, sqlite } of await bothTables(pool, db)) {
      expect(postgres, table).toEqual(sqlite);
    }
    db.close();
  });

  it('subtracts each pruned error once when two hosts prune at the same time', async () => {
    const url = await bases.fresh('two_prunes');
    const owner = testOwner('p');
    const now = (): number => start + 4 * DAY;
    const setup = bases.pool(url);
    await inTransaction(setup, (c) => new PostgresJournalWriter(owner, now).append(c, history().flat()));
    const reports = await Promise.all([bases.pool(url), bases.pool(url)].map((pool) => prunePg(pool, now, { olderThanMs: 2 * DAY })));
    expect(reports.map((r) => r.runs).sort((a, b) => a - b)[0]).toBe(0);
    expect(reports[0]!.runs + reports[1]!.runs).toBeGreaterThan(10);
    const errors = (await setup.query<{ n: number }>('SELECT COUNT(*)::bigint AS n FROM errors')).rows[0]!.n;
    for (const table of ['error_rollups', 'error_rollups_hour', 'error_rollups_day', 'error_group_trend_hour', 'error_group_trend_day', 'error_groups']) {
      expect((await setup.query(`SELECT COALESCE(SUM(count), 0) AS n FROM ${table}`)).rows, table).toEqual([{ n: errors }]);
      expect((await setup.query(`SELECT COUNT(*)::bigint AS n FROM ${table} WHERE count <= 0`)).rows, table).toEqual([{ n: 0 }]);
    }
  });

  it('refuses a negative age, as SQLite does', async () => {
    const pool = bases.pool(await bases.fresh('bad_prune'));
    await expect(prunePg(pool, () => 0, { olderThanMs: -1 })).rejects.toThrow('olderThanMs must be a non-negative number of milliseconds');
  });
});
