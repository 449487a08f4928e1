import { randomBytes } from 'node:crypto';

let deliveriesMade = 0;

/**
 * A new delivery's id. Deliveries due at the same time are claimed in id order
 * (alert-queries.ts), and one receiver takes one at a time: so ids made in one process sort in
 * the order they were made, and "New issue" reaches the receiver before the "Escalating issue"
 * decided in the same pass. The random tail keeps ids of different hosts apart.
 */
export function deliveryId(): string {
  deliveriesMade += 1;
  return `dlv_${deliveriesMade.toString(16).padStart(10, '0')}${randomBytes(6).toString('hex')}`;
}
