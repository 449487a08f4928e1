import type pg from 'pg';
import type { HivewatchEvent } from '../../../base/events.js';
import { eventPayload } from '../../projection/journal-codec.js';

/**
 * Batches whose COMMIT may have happened though this host saw its connection die: a server
 * killed or restarted during COMMIT leaves the outcome in doubt (`pg_ctl restart -m immediate`
 * mid-write). The sink writes such a batch again, and if the first COMMIT did
 * land, the second meets the batch's own events ("already in the journal"). Only for a batch this
 * host had in doubt, and only when every event is in the journal exactly as this host wrote it,
 * does that mean "committed": the retry then succeeds without writing anything. Anything else
 * (another host's events at those seqs, a second `hivewatch migrate` copying the same history)
 * stays the refusal it is.
 */
export class InDoubtBatches {
  private readonly keys = new Set<string>();

  private static key(event: HivewatchEvent): string {
    return `${event.runId}\u0000${event.seq}`;
  }

  remember(events: readonly HivewatchEvent[]): void {
    for (const event of events) this.keys.add(InDoubtBatches.key(event));
  }

  forget(events: readonly HivewatchEvent[]): void {
    if (this.keys.size === 0) return;
    for (const event of events) this.keys.delete(InDoubtBatches.key(event));
  }

  covers(events: readonly HivewatchEvent[]): boolean {
    return events.length > 0 && events.every((event) => this.keys.has(InDoubtBatches.key(event)));
  }
}

interface StoredRow {
  run_id: string;
  seq: number;
  type: string;
  ts: number;
  payload: string;
  wall: number | null;
  commit_seq: number;
}

/** The journaled walls and commit positions of `events` when every one is stored exactly as given; else null. */
export async function committedAlready(pool: pg.Pool, events: readonly HivewatchEvent[]): Promise<{ walls: number[]; commitSeqs: number[] } | null> {
  const { rows } = await pool.query<StoredRow>(
    `SELECT e.run_id, e.seq, e.type, e.ts, e.payload, e.wall, e.commit_seq
       FROM events AS e JOIN unnest($1::text[], $2::bigint[]) AS k (run_id, seq) ON e.run_id = k.run_id AND e.seq = k.seq`,
    [events.map((e) => e.runId), events.map((e) => e.seq)],
  );
  const stored = new Map(rows.map((row) => [`${row.run_id}\u0000${row.seq}`, row]));
  const walls: number[] = [];
  const commitSeqs: number[] = [];
  for (const event of events) {
    const row = stored.get(`${event.runId}\u0000${event.seq}`);
    if (row === undefined || row.type !== event.type || Number(row.ts) !== event.ts || row.payload !== eventPayload(event)) return null;
    walls.push(Number(row.wall ?? row.ts));
    commitSeqs.push(Number(row.commit_seq));
  }
  return { walls, commitSeqs };
}
