import type pg from 'pg';
import { runAsync, type Query, type SqlStep } from '../../queries/plan.js';
import { numberPlaceholders } from './placeholders.js';
import { inTransaction } from './transaction.js';

/** How the store runs the shared query plans (queries/plan.ts) and its transactions on PostgreSQL. */

export type Executor = (step: SqlStep) => Promise<unknown>;

/** Runs a shared query's statements on one connection (a pool client), or each on any (the pool). */
export function executorOf(db: pg.Pool | pg.PoolClient): Executor {
  return async (step) => {
    const result = await db.query(numberPlaceholders(step.sql), step.params as unknown[]);
    if (step.mode === 'all') return result.rows;
    if (step.mode === 'get') return result.rows[0];
    return { changes: result.rowCount ?? 0 };
  };
}

/** How a read opens its transaction: one statement, so a one-statement read costs three round trips, not four. */
export const SNAPSHOT_BEGIN = 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY';

/** A query's statements in one snapshot: what one SQLite connection's reads see. */
export function inSnapshot<T>(pool: pg.Pool, query: Query<T>): Promise<T> {
  return inTransaction(pool, (client) => runAsync(executorOf(client), query), undefined, SNAPSHOT_BEGIN);
}

/**
 * One write at a time: each starts once the previous one settled (failures included), so a
 * store's batches commit, and reach its listeners, in the order they were asked for.
 */
export class WriteQueue {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.last.then(work);
    this.last = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every write queued so far has settled. */
  async drained(): Promise<void> {
    await this.last;
  }
}
