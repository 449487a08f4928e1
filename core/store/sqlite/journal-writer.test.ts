import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { OPEN_ROWS_SQL } from './journal-writer.js';
import { migrate } from './migrate.js';

/**
 * A run's state is loaded the first time a writer touches it (after `serve` starts, say), and a
 * long agent session has tens of thousands of closed attempts and occurrences: its open ones are
 * read from the partial indexes of migration 29, never by reading every row of the run.
 */
describe("the writer's loads of a run's open rows", () => {
  const db = openDatabase({ path: ':memory:' });
  migrate(db);
  afterAll(() => db.close());
  const plan = (sql: string): string => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('run_x') as { detail: string }[]).map((row) => row.detail).join(' | ');

  it('reads the pending occurrences from errors_pending, already in seq order', () => {
    expect(plan(OPEN_ROWS_SQL.pendingErrors)).toBe('SEARCH errors USING INDEX errors_pending (run_id=?)');
  });

  it('reads the running attempts from attempts_running', () => {
    expect(plan(OPEN_ROWS_SQL.attempts)).toBe('SEARCH attempts USING INDEX attempts_running (run_id=?)');
  });
});
