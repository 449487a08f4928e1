/**
 * How many deliveries one host posts at once (docs/triage.md, "Deliveries"): per receiver (one
 * webhook URL), per server (its scheme, host and port, which many URLs may share) and in all.
 * A receiver that hangs holds at most its own slots, so it delays only its own deliveries until
 * so many receivers hang at once that the overall bound is reached.
 */

export interface DeliveryLimits {
  /** In flight to one webhook URL: 1 keeps a receiver's messages in order and its rate low. */
  perReceiver: number;
  /** In flight to one server, whatever the path: a hanging server with many rules holds this many. */
  perServer: number;
  /** In flight from this host. */
  overall: number;
}

const DELIVERY_LIMITS: DeliveryLimits = Object.freeze({ perReceiver: 1, perServer: 4, overall: 16 });

/** A URL's server; a value that is no URL (a row written by hand) is its own server. */
function serverOf(webhook: string): string {
  try {
    return new URL(webhook).origin;
  } catch {
    return webhook;
  }
}

export class ReceiverSlots {
  private readonly byReceiver = new Map<string, number>();
  private readonly byServer = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: DeliveryLimits = DELIVERY_LIMITS) {}

  /** No slot is left on this host: nothing more is claimed until a delivery ends. */
  full(): boolean {
    return this.total >= this.limits.overall;
  }

  /** Whether a delivery to `webhook` would pass its receiver's or its server's bound. */
  busy(webhook: string): boolean {
    return (this.byReceiver.get(webhook) ?? 0) >= this.limits.perReceiver || (this.byServer.get(serverOf(webhook)) ?? 0) >= this.limits.perServer;
  }

  /**
   * Counts a delivery in flight (to `webhook`, or to no known receiver when its rule is gone) and
   * returns what gives the slot back. It counts even past a bound: a delivery already claimed is
   * posted, and counting it keeps more from being added beside it.
   */
  take(webhook: string | null): () => void {
    this.total += 1;
    const keys: [Map<string, number>, string][] =
      webhook === null
        ? []
        : [
            [this.byReceiver, webhook],
            [this.byServer, serverOf(webhook)],
          ];
    for (const [counts, key] of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      for (const [counts, key] of keys) {
        const left = (counts.get(key) ?? 1) - 1;
        if (left === 0) counts.delete(key);
        else counts.set(key, left);
      }
    };
  }
}
