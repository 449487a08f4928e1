import type { HivewatchEvent } from '../../base/events.js';
import { get, type Dialect, type Query } from '../queries/plan.js';

/**
 * After a batch was refused: which of its runs another host interrupted meanwhile. A run is
 * taken when the journal has it `interrupted` at or past the seq this batch starts it at, so the
 * refused events continue a journal that someone else already ended (host-liveness.ts says when
 * another host may do that). Only read on the failure path: a batch that commits costs nothing.
 */
export function* takenRuns(_dialect: Dialect, events: readonly HivewatchEvent[]): Query<string[]> {
  const firstSeq = new Map<string, number>();
  for (const event of events) {
    if (typeof event?.runId !== 'string' || firstSeq.has(event.runId)) continue;
    firstSeq.set(event.runId, event.seq);
  }
  const taken: string[] = [];
  for (const [runId, seq] of firstSeq) {
    const row = yield* get<{ status: string; last_seq: number | string }>('SELECT status, last_seq FROM runs WHERE id = ?', [runId]);
    if (row && row.status === 'interrupted' && Number.isFinite(seq) && seq <= Number(row.last_seq)) taken.push(runId);
  }
  return taken;
}
