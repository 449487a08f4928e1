import type pg from 'pg';

/**
 * The change token on PostgreSQL: the journal head and the newest run command. It changes when
 * another connection commits, not when this store does, as SQLite's `data_version` does. The head in the database moves with every commit, and a journal tail that took
 * each move for another host's commit re-read the journal and the pending commands after
 * nearly every batch of its own: events it had already published, commands nobody had sent.
 *
 * The store tells which positions its batches took once their COMMIT returned. A head read is
 * reported as it is when any position since the last read is not one of those (another
 * connection committed it), else the token stays as it was. Erring is always towards "changed",
 * which costs the reader one look at the journal: a head read before its COMMIT's answer came
 * back, a batch forgotten past the bound, a position the store could not account for.
 * Commands keep their own part of the token.
 */
const MAX_BATCHES = 10_000;

export class ChangeToken {
  /** This store's committed batches not yet passed by a read: last position → first. */
  private readonly own = new Map<number, number>();
  /** Every position up to here is accounted for by an earlier read. */
  private settled = 0;
  private reported = 0;

  /** This store committed a batch at these positions. */
  committed(commitSeqs: readonly number[]): void {
    const first = commitSeqs[0];
    const last = commitSeqs[commitSeqs.length - 1];
    // Only a contiguous batch is recorded; anything else reads as another connection's commit.
    if (first === undefined || last === undefined || last - first + 1 !== commitSeqs.length || last <= this.settled) return;
    this.own.set(last, first);
    // Batches commit in order, so the first entry is the oldest.
    if (this.own.size > MAX_BATCHES) this.own.delete(this.own.keys().next().value as number);
  }

  /** Reads the token (probed every 50 ms by each journal tail). */
  async read(pool: pg.Pool): Promise<string> {
    const { rows } = await pool.query<{ head: number; command: number }>(
      'SELECT (SELECT commit_seq FROM journal_head WHERE id = 1) AS head, (SELECT COALESCE(MAX(id), 0) FROM run_commands) AS command',
    );
    return `${this.report(rows[0]?.head ?? 0)}:${rows[0]?.command ?? 0}`;
  }

  /** The head to report for the journal head just read: it, unless only this store committed since the last read. */
  report(head: number): number {
    // Walk down from the head through this store's batches; stopping above `settled` means a position nobody here took.
    let position = head;
    while (position > this.settled) {
      const first = this.own.get(position);
      if (first === undefined) break;
      position = first - 1;
    }
    if (position > this.settled) this.reported = head;
    this.settled = Math.max(this.settled, head);
    for (const last of this.own.keys()) if (last <= this.settled) this.own.delete(last);
    return this.reported;
  }
}
