import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/index.js';
import { intervalScheduler, type TailScheduler } from '../live/journal-tail.js';
import { AlertEngine, mayAlert, type AlertEngineOptions } from './engine.js';
import type { AlertDeliveryChange } from './views.js';

/**
 * The alert engine as a service runs it: a pass after each batch committed that holds an event an
 * alert can come from (soon, not inside the commit) — this process's batches as the store tells
 * them, other processes' as the service's journal tail finds them (`nudge`) — and on a timer for
 * what the timer alone can see: deliveries whose retry came due, runs that have now been running
 * too long, a host whose tail is behind. A pass that fails (the database away) is logged and
 * tried again on the next tick. A pass starts deliveries and does not wait for their POSTs, so a
 * receiver that hangs never delays the next pass. A pass that stored deliveries, and each POST
 * recorded, tells the listeners of `onDeliveries` (the windows of this host), so a firing reaches
 * the screen within the pass, not the windows' next beat.
 */

export interface AlertsHostOptions extends Pick<AlertEngineOptions, 'now' | 'post' | 'timeoutMs' | 'limits' | 'log'> {
  /** Default 5 s. */
  intervalMs?: number;
  scheduler?: TailScheduler;
}

export interface AlertsHost {
  engine: AlertEngine;
  /** Committed events as the service's journal tail publishes them, other processes' included: a pass soon when one can alert. */
  nudge(events: readonly HivewatchEvent[]): void;
  /** `listener` after each pass that stored deliveries and each POST recorded; returns the unsubscribe. */
  onDeliveries(listener: (change: AlertDeliveryChange) => void): () => void;
  stop(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 5_000;

export function startAlerts(store: HivewatchStore, options: AlertsHostOptions | false | undefined, instance: string): AlertsHost | null {
  if (options === false || store.readonly) return null;
  const settings = options ?? {};
  const log = settings.log ?? (() => undefined);
  const deliveryListeners = new Set<(change: AlertDeliveryChange) => void>();
  // A listener that throws (a window's stream gone bad) is logged; it never fails a pass or a POST's record.
  const tell = (change: AlertDeliveryChange): void => {
    for (const listener of deliveryListeners) {
      try {
        listener(change);
      } catch (error) {
        log(`alerts: a delivery listener failed: ${(error as Error).message}`);
      }
    }
  };
  const engine = new AlertEngine({ ...settings, store, host: `${instance}-${process.pid}`, log, onDeliveries: tell });
  let stopped = false;
  let last: Promise<void> = Promise.resolve();
  const pump = (): void => {
    if (stopped) return;
    last = engine.pass().catch((error: unknown) => log(`alerts: ${(error as Error).message}`));
  };
  // One pass for the batches of one turn, however many of the store's and the tail's reports name them.
  let scheduled = false;
  const passSoon = (events: readonly HivewatchEvent[]): void => {
    // Only after a batch with an event an alert can come from: the timer's pass covers the rest.
    if (scheduled || !mayAlert(events)) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      pump();
    });
  };
  const unsubscribe = store.subscribe(passSoon);
  const cancelTimer = (settings.scheduler ?? intervalScheduler)(pump, settings.intervalMs ?? DEFAULT_INTERVAL_MS);
  return {
    engine,
    nudge: passSoon,
    onDeliveries(listener: (change: AlertDeliveryChange) => void): () => void {
      deliveryListeners.add(listener);
      return () => deliveryListeners.delete(listener);
    },
    async stop(): Promise<void> {
      stopped = true;
      deliveryListeners.clear();
      unsubscribe();
      cancelTimer();
      engine.halt();
      await last;
      await engine.idle();
    },
  };
}
