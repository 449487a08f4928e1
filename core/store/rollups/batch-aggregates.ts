import type { SettleOutput } from '../projection/dispositions.js';
import { FailureDeltas } from './failure-rollups.js';
import { fingerprintOf } from '../projection/fingerprint.js';
import { BatchRollups, TIME_MAX, TIME_MIN } from './rollups.js';
import type { ErrorRow } from '../projection/schema.js';

/**
 * Everything a batch adds to the aggregates, summed once for both writers (SQLite's
 * JournalWriter, PostgreSQL's PostgresJournalWriter): the error rollups and group trends, the
 * error groups, and the failure rollups. A terminal event's settled occurrences move their counts
 * from the pending key to their final disposition's, in the same sums, so each rollup table gets
 * one write per key and batch (and on PostgreSQL one sorted statement: hosts lock rows in one order).
 */

export interface GroupDelta {
  fingerprint: string;
  category: string;
  code: string;
  origin: string;
  template: string;
  lastMessage: string;
  count: number;
  /** Members whose disposition is (or became) `unhandled`. */
  unhandled: number;
  /** Seen bounds of the members added; a delta that only settles members leaves them as stored (TIME_MAX / TIME_MIN). */
  firstSeen: number;
  lastSeen: number;
}

export function addGroupContribution(groups: Map<string, GroupDelta>, error: ErrorRow): void {
  const current = groups.get(error.fingerprint);
  const unhandled = error.disposition === 'unhandled' ? 1 : 0;
  if (current) {
    current.count += 1;
    current.unhandled += unhandled;
    current.firstSeen = Math.min(current.firstSeen, error.ts);
    if (error.ts >= current.lastSeen) {
      current.lastSeen = error.ts;
      current.lastMessage = error.message;
    }
    return;
  }
  groups.set(error.fingerprint, {
    fingerprint: error.fingerprint,
    category: error.category,
    code: error.code,
    origin: error.origin,
    template: fingerprintOf(error.category, error.code, error.origin, error.message).template,
    lastMessage: error.message,
    count: 1,
    unhandled,
    firstSeen: error.ts,
    lastSeen: error.ts,
  });
}

/** A stored member's change of disposition: only its group's unhandled count moves. */
function addSettlement(groups: Map<string, GroupDelta>, before: ErrorRow, after: ErrorRow): void {
  const delta = (after.disposition === 'unhandled' ? 1 : 0) - (before.disposition === 'unhandled' ? 1 : 0);
  if (delta === 0) return;
  const current = groups.get(after.fingerprint);
  if (current) {
    current.unhandled += delta;
    return;
  }
  groups.set(after.fingerprint, {
    fingerprint: after.fingerprint,
    category: after.category,
    code: after.code,
    origin: after.origin,
    template: fingerprintOf(after.category, after.code, after.origin, after.message).template,
    lastMessage: after.message,
    count: 0,
    unhandled: delta,
    // The member is stored already: MIN / MAX with these keep the group's bounds and last message.
    firstSeen: TIME_MAX,
    lastSeen: TIME_MIN,
  });
}

export interface BatchAggregates {
  rollups: BatchRollups;
  groups: Map<string, GroupDelta>;
  failures: FailureDeltas;
}

export function aggregateBatch(emitted: SettleOutput): BatchAggregates {
  const rollups = new BatchRollups();
  const groups = new Map<string, GroupDelta>();
  const failures = new FailureDeltas();
  for (const error of emitted.errors) {
    rollups.add(error);
    addGroupContribution(groups, error);
  }
  for (const { before, after } of emitted.settled) {
    rollups.add(before, -1);
    rollups.add(after, 1);
    addSettlement(groups, before, after);
  }
  for (const { failure, sign } of emitted.failures) failures.add(failure, sign);
  return { rollups, groups, failures };
}
