import { API_METHODS, type ApiMethod } from '../../core/common/api-routes.js';
import type { BridgeReply, HivewatchApi, HivewatchBridge, LiveEvent, SubscribeOptions } from '../../core/service/api.js';
import { apiErrorFrom } from '../../core/common/api-errors.js';

/**
 * HivewatchApi over Electron's preload bridge (`window.hivewatch`), one call per method of the
 * API's table (core/common/api-routes.ts). Calls come back as data
 * (`{ok, value}` or `{ok: false, error}`) because IPC loses error classes; failures are turned
 * back into ApiError with the service's status, code and message.
 */
export function createIpcClient(bridge: HivewatchBridge): HivewatchApi {
  const call = async <T>(method: ApiMethod, input?: unknown): Promise<T> => {
    const reply: BridgeReply = await bridge.invoke(method, input);
    if (!reply.ok) throw apiErrorFrom(reply.error.status, { error: reply.error }, `${method}: failed`);
    return reply.value as T;
  };
  return {
    ...(Object.fromEntries(API_METHODS.map((method) => [method, (input?: unknown) => call(method, input)])) as unknown as Omit<HivewatchApi, 'subscribe'>),
    subscribe(listener: (batch: LiveEvent[]) => void, options: SubscribeOptions = {}): () => void {
      return bridge.subscribe(options.afterId ?? 0, (message) => {
        if (message.kind === 'batch') listener(message.events);
        else if (message.kind === 'reset') options.onReset?.();
        else if (message.kind === 'alerts') options.onAlertDeliveries?.({ desktop: message.desktop });
        else options.onReady?.(message.startId);
      });
    },
  };
}
