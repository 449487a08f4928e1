import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import type { RunRow } from '../../store/index.js';
import { sessionKeyOf } from '../mapping.js';
import { planStopWatching, stoppableSession } from './session-limit.js';

/**
 * The operator's cancel of an external session stopped by its usage limit or waiting on a person's
 * answer to a permission prompt (session-limit.ts): journaled straight into the store, as the
 * quiet period's sweep is, since no Hivewatch process hosts the session. Any other external run
 * keeps refusing a cancel (Hivewatch cannot stop a CLI it did not start; docs/otel.md "Usage
 * limits of external sessions", "Waiting for approval").
 */

/** Whether the run is an external session the operator may cancel now: running, and stopped by a usage limit or waiting for approval. */
export const isStoppedExternalSession = (row: RunRow): boolean => row.status === 'running' && (row.waitingUntil !== null || row.approvalSince !== null);

/** Ends the paused session's run as cancelled; false when it is no longer paused (telemetry came, or it ended) or a Hivewatch attempt sent it. */
export async function stopWatchingSession(store: HivewatchStore, runId: string, cause: { commandId: string; reason: string }, now: number): Promise<boolean> {
  const [first] = await store.getEvents(runId, 0, 1);
  if (first?.type !== 'runStarted' || !first.external) return false;
  const key = sessionKeyOf(first.external);
  // A payload of the session journaled in between takes the seqs this plan wanted: read again once.
  for (let tries = 0; ; tries += 1) {
    const row = await store.externalSession(key);
    if (!row || !stoppableSession(row)) return false;
    const plan = planStopWatching(row, now, cause);
    const events = plan.events.map((e, i) => ({ ...e, runId: row.runId, seq: row.lastSeq + i + 1 }) as HivewatchEvent);
    try {
      await store.ingestExternal({ digest: null, records: 0, receivedAt: now, sessions: [{ ...plan.row, lastSeq: row.lastSeq + events.length }] }, events);
      return true;
    } catch (error) {
      if (tries > 0) throw error;
    }
  }
}

/**
 * The Hivewatch attempt that sent an external session (a preset run), or null for a session
 * Hivewatch did not start: Hivewatch owns that process, so a cancel goes to the run of that attempt.
 */
export async function launchingAttemptOf(store: HivewatchStore, runId: string): Promise<{ runId: string; taskId: string; attempt: number } | null> {
  const [first] = await store.getEvents(runId, 0, 1);
  return first?.type === 'runStarted' ? (first.external?.parent ?? null) : null;
}
