import type pg from 'pg';
import type { HivewatchEvent } from '../../../base/events.js';

/**
 * Keeps the planner's statistics up with this store's own growth.
 *
 * PostgreSQL plans from statistics that autovacuum's ANALYZE gathers, at most once a naptime (a
 * minute by default) and only after a tenth of a table changed. Until then a table that grew from
 * nothing is planned as nearly empty, and that plan can be ruinous: with no statistics, an issue's
 * run count (`runs.id IN (its runs)`, 10,337 runs) looked each run up through the trigram index on
 * `runs.id` instead of the primary key, and took 23–64 s on this project's test machine; analysed,
 * the same query is a hash join of a few milliseconds.
 *
 * So the writer analyses the database itself each time the runs it has written double (the first
 * time at `firstAt` runs): after an import or a burst, the next read is planned from what is there.
 * Doubling keeps it rare (about twenty ANALYZEs up to a million runs); steady growth of a large
 * database is autovacuum's. ANALYZE samples at most 30,000 rows a table, runs after the batch's
 * COMMIT, and takes a lock that neither reads nor writes wait on.
 */
export class FreshStatistics {
  private written = 0;
  private nextAt: number;

  constructor(
    private readonly log: (message: string) => void,
    firstAt = 1_000,
  ) {
    this.nextAt = firstAt;
  }

  /** Counts a committed batch's new runs; answers whether the database is now due an ANALYZE. */
  committed(events: readonly HivewatchEvent[]): boolean {
    for (const event of events) if (event.type === 'runStarted') this.written++;
    if (this.written < this.nextAt) return false;
    this.nextAt = this.written * 2;
    return true;
  }

  /** Analyses the database. Statistics only steer plans: a failure is logged and nothing else. */
  async analyze(pool: pg.Pool): Promise<void> {
    try {
      await pool.query('ANALYZE');
    } catch (error) {
      this.log(`could not refresh PostgreSQL's planner statistics (ANALYZE): ${(error as Error).message}`);
    }
  }
}
