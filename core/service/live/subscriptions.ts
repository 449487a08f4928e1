import type { LiveEvent, SubscribeOptions } from '../api.js';
import type { LiveHub } from './hub.js';
import { parseWith, subscribeSchema } from '../schemas.js';
import type { HivewatchService } from '../service-types.js';

/** The live subscriptions: the API's `subscribe` (validated like every input) and the shells' `subscribeLive`. */
export function subscriptions(liveHub: LiveHub): Pick<HivewatchService, 'subscribe' | 'subscribeLive'> {
  return {
    subscribe(listener: (batch: LiveEvent[]) => void, subscribeOptions: SubscribeOptions = {}): () => void {
      const { afterId } = parseWith(subscribeSchema, { ...(subscribeOptions.afterId !== undefined ? { afterId: subscribeOptions.afterId } : {}) });
      const { onReset, onReady } = subscribeOptions;
      let active = true;
      const subscription = liveHub.subscribe({ afterId, onBatch: listener, onReset: onReset && (() => onReset()) });
      // Callbacks never run inside subscribe(): the caller gets its unsubscribe function first.
      setImmediate(() => {
        if (!active) return;
        if (subscription.reset) onReset?.();
        onReady?.(subscription.startId);
      });
      return () => {
        active = false;
        subscription.unsubscribe();
      };
    },

    subscribeLive: (liveOptions) => liveHub.subscribe(liveOptions),
  };
}
