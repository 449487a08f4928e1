import type { AlertDelivery } from '../alert-queries.js';
import type { AlertRule } from '../rules.js';
import { ReceiverSlots, type DeliveryLimits } from './receiver-slots.js';

/**
 * Posts due deliveries side by side, within the bounds of ReceiverSlots. It claims a delivery
 * only when there is a slot for it: the claim leaves out the rules whose receiver (or server) is
 * at its bound, so a due delivery to a healthy receiver is claimed past any number of due
 * deliveries to a hanging one. What it cannot start stays due in the database, unleased, for any
 * host of the database (this one as soon as a slot frees): nothing waits in memory holding a
 * lease. When a delivery ends, the claiming runs again.
 */

export interface DispatcherParts {
  rules(): Promise<AlertRule[]>;
  /** Leases the next due delivery whose rule is not one of `busyRules`; null when none is due. */
  claim(busyRules: readonly string[]): Promise<AlertDelivery | null>;
  /** Posts a claimed delivery and records its outcome; `rule` is undefined when it was not in the list read. */
  deliver(delivery: AlertDelivery, rule: AlertRule | undefined): Promise<void>;
  halted(): boolean;
  log(message: string): void;
  limits?: DeliveryLimits;
}

export class DeliveryDispatcher {
  private readonly slots: ReceiverSlots;
  private readonly inFlight = new Set<Promise<void>>();
  private claiming: Promise<void> | null = null;
  private again = false;
  /** Set by the first dispatch: only an engine that delivers claims more when a slot frees (`alerts test` in a CLI process posts its own delivery only). */
  private delivering = false;

  constructor(private readonly parts: DispatcherParts) {
    this.slots = new ReceiverSlots(parts.limits);
  }

  /** Claims and starts what is due while there are slots; resolves when claiming stops, not when the posts end. */
  dispatch(): Promise<void> {
    this.delivering = true;
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      try {
        do {
          this.again = false;
          await this.claimWhileRoom();
        } while (this.again && !this.parts.halted());
      } finally {
        this.claiming = null;
      }
    })();
    return this.claiming;
  }

  /** Posts one delivery already claimed (`alerts test`) now, counted in its receiver's slots, and waits for it. */
  deliverNow(delivery: AlertDelivery, rule: AlertRule | undefined): Promise<void> {
    return this.start(delivery, rule);
  }

  /** Resolves when no delivery is in flight and no claiming runs. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.claiming) await Promise.allSettled([...this.inFlight, this.claiming]);
  }

  private async claimWhileRoom(): Promise<void> {
    if (this.parts.halted() || this.slots.full()) return;
    const rules = await this.parts.rules();
    while (!this.parts.halted() && !this.slots.full()) {
      const busy = rules.filter((rule) => rule.webhook !== null && this.slots.busy(rule.webhook)).map((rule) => rule.id);
      const delivery = await this.parts.claim(busy);
      if (!delivery) return;
      void this.start(
        delivery,
        rules.find((rule) => rule.id === delivery.ruleId),
      );
    }
  }

  private start(delivery: AlertDelivery, rule: AlertRule | undefined): Promise<void> {
    const release = this.slots.take(rule?.webhook ?? null);
    const posting: Promise<void> = this.parts
      .deliver(delivery, rule)
      .catch((error: unknown) => this.parts.log(`alert delivery ${delivery.id}: ${(error as Error).message}`))
      .finally(() => {
        release();
        this.inFlight.delete(posting);
        // A slot came free: what waited for it (this receiver's next delivery, or any other) goes now.
        if (this.delivering && !this.parts.halted()) this.dispatch().catch((error: unknown) => this.parts.log(`alerts: ${(error as Error).message}`));
      });
    this.inFlight.add(posting);
    return posting;
  }
}
