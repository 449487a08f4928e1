import type { HivewatchStore } from '../../store/contract.js';
import { DeliveryStatus, type AlertDelivery, type NewDelivery } from './alert-queries.js';
import { deliveryId } from './delivery-id.js';

/**
 * The "Resolved: …" follow-ups of alerts whose subject is no longer failing: which runs a
 * completed run retried (or resumed) back to the first, and the follow-up delivery of a firing.
 */

/** The runs `runId` retried or resumed, nearest first, back to the first (at most 50; a loop stops it). */
export async function retriedAncestors(store: HivewatchStore, runId: string): Promise<string[]> {
  const ancestors: string[] = [];
  let row = await store.getRunRow(runId);
  while (row && ancestors.length < 50) {
    const parent = row.retryOf ?? row.resumedFrom;
    if (parent === null || ancestors.includes(parent)) break;
    ancestors.push(parent);
    row = await store.getRunRow(parent);
  }
  return ancestors;
}

/** The follow-up of `fire`; it goes where its alert went: posted if that was, only shown on the desktop if not. */
export function followUpOf(fire: AlertDelivery, why: string, at: number): { delivery: NewDelivery; posted: boolean } {
  const title = `Resolved: ${fire.title} (${why})`;
  return {
    posted: fire.status !== DeliveryStatus.desktop,
    delivery: {
      id: deliveryId(),
      ruleId: fire.ruleId,
      subject: fire.subject,
      occurrence: `resolved:${fire.id}`,
      throttleKey: fire.throttleKey,
      kind: 'resolve',
      refersTo: fire.id,
      title,
      facts: { ...fire.facts, text: title, at },
    },
  };
}
