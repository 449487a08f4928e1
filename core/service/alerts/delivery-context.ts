import type { HivewatchStore } from '../../store/contract.js';
import { getDelivery, previousUnthrottled, throttledSince, type AlertDelivery } from './alert-queries.js';
import type { DeliveryContext } from './webhook.js';

/**
 * What a delivery's message says besides itself, read when it is posted: how many alerts of its
 * rule and throttle key were counted instead of sent since the previous message ("and 4 more
 * since 14:05 UTC"), and for a follow-up, the delivery it refers to (id and original title).
 */
export async function deliveryContext(store: HivewatchStore, delivery: AlertDelivery): Promise<DeliveryContext> {
  let refersTo: DeliveryContext['refersTo'] = null;
  if (delivery.refersTo !== null) {
    const first = await store.runStatements((d) => getDelivery(d, delivery.refersTo!));
    refersTo = { id: delivery.refersTo, title: first?.title ?? '(a delivery no longer in the log)' };
  }
  if (delivery.kind !== 'fire') return { suppressed: null, refersTo };
  const previous = await store.runStatements((d) => previousUnthrottled(d, delivery.ruleId, delivery.throttleKey, delivery.createdAt, delivery.id));
  if (previous === null) return { suppressed: null, refersTo };
  const counted = await store.runStatements((d) => throttledSince(d, delivery.ruleId, delivery.throttleKey, previous, delivery.createdAt));
  return { suppressed: counted.count > 0 ? { count: counted.count, since: counted.first ?? previous } : null, refersTo };
}
