import type { HivewatchStore } from '../../store/index.js';
import { intervalScheduler, type TailScheduler } from '../live/journal-tail.js';
import { AlertEngine, mayAlert, type AlertEngineOptions } from './engine.js';

/**
 * The alert engine as a service runs it: a pass after each batch this process commits that holds
 * an event an alert can come from (soon, not inside the commit), and on a timer for what the timer alone can see: other hosts' commits,
 * deliveries whose retry came due, runs that have now been running too long. A pass that fails
 * (the database away) is logged and tried again on the next tick. A pass starts deliveries and
 * does not wait for their POSTs, so a receiver that hangs never delays the next pass.
 */

export interface AlertsHostOptions extends Pick<AlertEngineOptions, 'now' | 'post' | 'timeoutMs' | 'limits' | 'log'> {
  /** Default 5 s. */
  intervalMs?: number;
  scheduler?: TailScheduler;
}

export interface AlertsHost {
  engine: AlertEngine;
  stop(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 5_000;

export function startAlerts(store: HivewatchStore, options: AlertsHostOptions | false | undefined, instance: string): AlertsHost | null {
  if (options === false || store.readonly) return null;
  const settings = options ?? {};
  const log = settings.log ?? (() => undefined);
  const engine = new AlertEngine({ ...settings, store, host: `${instance}-${process.pid}`, log });
  let stopped = false;
  let last: Promise<void> = Promise.resolve();
  const pump = (): void => {
    if (stopped) return;
    last = engine.pass().catch((error: unknown) => log(`alerts: ${(error as Error).message}`));
  };
  // Only after a batch with an event an alert can come from: the timer's pass covers the rest.
  const unsubscribe = store.subscribe((events) => {
    if (mayAlert(events)) queueMicrotask(pump);
  });
  const cancelTimer = (settings.scheduler ?? intervalScheduler)(pump, settings.intervalMs ?? DEFAULT_INTERVAL_MS);
  return {
    engine,
    async stop(): Promise<void> {
      stopped = true;
      unsubscribe();
      cancelTimer();
      engine.halt();
      await last;
      await engine.idle();
    },
  };
}
