import type { Queryable } from './multi-row.js';

/**
 * Transaction-scoped advisory locks that order writers around rows many hosts share.
 *
 * Migration 18's triggers on `errors` add each occurrence to its issue's `error_group_stats`
 * row (and its `error_group_flows` row). Those rows are locked in the order the errors are
 * written — by run, not by issue — so two hosts writing errors of the same two issues in
 * opposite orders deadlock (seen: the writer test with 4 hosts, "deadlock detected"). A batch
 * that writes or settles errors, and a prune that deletes them, first take ERROR_FACTS_LOCK, so
 * they queue for each other while batches without errors still write in parallel.
 *
 * Lock order, the same in every transaction: ERROR_FACTS_LOCK, then RECOUNT_LOCK (writer.ts),
 * then `journal_head`. Any transaction takes a subset of these in this order, so no cycle forms.
 */
const ERROR_FACTS_LOCK = 0x4869_7665_6572;

export async function lockErrorFacts(client: Queryable): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [ERROR_FACTS_LOCK]);
}
