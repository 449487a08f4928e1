import type { AlertDeliveryChange, LiveEvent, SubscribeOptions } from '../api.js';
import type { LiveHub } from './hub.js';
import { parseWith, subscribeSchema } from '../schemas.js';
import type { HivewatchService } from '../service-types.js';

/**
 * The live subscriptions: the API's `subscribe` (validated like every input, and told of the
 * host's alert deliveries as the HTTP and IPC streams are) and the shells' `subscribeLive`.
 */
export function subscriptions(
  liveHub: LiveHub,
  onAlertDeliveries: (listener: (change: AlertDeliveryChange) => void) => () => void,
): Pick<HivewatchService, 'subscribe' | 'subscribeLive'> {
  return {
    subscribe(listener: (batch: LiveEvent[]) => void, subscribeOptions: SubscribeOptions = {}): () => void {
      const { afterId } = parseWith(subscribeSchema, { ...(subscribeOptions.afterId !== undefined ? { afterId: subscribeOptions.afterId } : {}) });
      const { onReset, onReady, onAlertDeliveries: told } = subscribeOptions;
      let active = true;
      const subscription = liveHub.subscribe({ afterId, onBatch: listener, onReset: onReset && (() => onReset()) });
      const stopAlerts = told ? onAlertDeliveries((change) => told({ desktop: change.desktop })) : () => undefined;
      // Callbacks never run inside subscribe(): the caller gets its unsubscribe function first.
      setImmediate(() => {
        if (!active) return;
        if (subscription.reset) onReset?.();
        onReady?.(subscription.startId);
      });
      return () => {
        active = false;
        subscription.unsubscribe();
        stopAlerts();
      };
    },

    subscribeLive: (liveOptions) => liveHub.subscribe(liveOptions),
  };
}
