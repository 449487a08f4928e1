import { z } from 'zod';
import { isApiMethod } from '../core/common/api-routes.js';
import { callApiMethod } from '../core/service/api-call.js';
import type { BridgeMessage, BridgeReply } from '../core/service/api.js';
import { ApiError } from '../core/common/api-errors.js';
import { toWireError } from '../core/service/wire-error.js';
import { parseWith } from '../core/service/schemas.js';
import type { HivewatchService } from '../core/service/service.js';
import { CALL_CHANNEL, EVENTS_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL } from './security.js';

/**
 * The API on IPC channels: every call on `hivewatch:call` with the method's name and its input
 * (ipcMain.handle; a name that is not in the API's table is refused here), and
 * `hivewatch:subscribe` / `hivewatch:unsubscribe` with batches pushed on `hivewatch:events`.
 * Every payload is validated with the API's schemas before the service sees it; answers are
 * data (`{ok, value}` / `{ok: false, error}`) because IPC drops error classes. A sender that is
 * not the app's own page is refused. Typed against the small parts of Electron it uses, so it
 * runs (and is tested) without Electron.
 */

export interface SenderLike {
  readonly id: number;
  send(channel: string, message: unknown): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

export interface IpcEventLike {
  sender: SenderLike;
  senderFrame?: { url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface IpcOptions {
  /** Whether the calling frame is the app (main.ts: the frame URL is app://hivewatch/...). Default: all trusted. */
  isTrustedSender?: (event: IpcEventLike) => boolean;
}

const subscribePayload = z.strictObject(
  {
    subscription: z.string({ error: 'must be a string' }).regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a subscription id'),
    afterId: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be at least 0').optional(),
  },
  { error: 'input must be an object' },
);
const unsubscribePayload = subscribePayload.pick({ subscription: true });

function failure(error: unknown): BridgeReply {
  const wire = toWireError(error);
  return { ok: false, error: { status: wire.status, code: wire.body.error.code, message: wire.body.error.message } };
}

const FORBIDDEN: BridgeReply = { ok: false, error: { status: 403, code: 'forbidden_frame', message: 'this frame may not call the Hivewatch API' } };

export function registerIpc(ipcMain: IpcMainLike, service: HivewatchService, options: IpcOptions = {}): () => void {
  const trusted = options.isTrustedSender ?? (() => true);
  /** `${senderId}:${subscription}` → unsubscribe */
  const subscriptions = new Map<string, () => void>();
  const watchedSenders = new Set<number>();
  const channels: string[] = [];

  const handle = (channel: string, listener: (event: IpcEventLike, args: unknown[]) => Promise<BridgeReply> | BridgeReply): void => {
    channels.push(channel);
    ipcMain.handle(channel, async (event, ...args) => {
      if (!trusted(event)) return FORBIDDEN;
      try {
        return await listener(event, args);
      } catch (error) {
        return failure(error);
      }
    });
  };

  const oneArgument = (args: unknown[]): unknown => {
    if (args.length > 1) throw new ApiError('invalid_input', 'takes one input object');
    return args[0];
  };

  handle(CALL_CHANNEL, async (_event, args) => {
    if (args.length > 2) throw new ApiError('invalid_input', 'takes a method name and one input object');
    const [method, given] = args;
    if (!isApiMethod(method)) throw new ApiError('unknown_method', `no API method ${JSON.stringify(String(method)).slice(0, 80)}`);
    return { ok: true, value: (await callApiMethod(service, method, given)).value };
  });

  const send = (sender: SenderLike, subscription: string, message: BridgeMessage): void => {
    if (!sender.isDestroyed()) sender.send(EVENTS_CHANNEL, { subscription, ...message });
  };

  handle(SUBSCRIBE_CHANNEL, (event, args) => {
    const { subscription, afterId } = parseWith(subscribePayload, oneArgument(args));
    const sender = event.sender;
    const key = `${sender.id}:${subscription}`;
    subscriptions.get(key)?.();
    const live = service.subscribeLive({
      afterId,
      onBatch: (events) => send(sender, subscription, { kind: 'batch', events }),
      onReset: (head) => send(sender, subscription, { kind: 'reset', startId: head }),
    });
    const stopAlerts = service.onAlertDeliveries((change) => send(sender, subscription, { kind: 'alerts', desktop: change.desktop }));
    subscriptions.set(key, () => {
      live.unsubscribe();
      stopAlerts();
      subscriptions.delete(key);
    });
    if (!watchedSenders.has(sender.id)) {
      watchedSenders.add(sender.id);
      sender.once('destroyed', () => {
        watchedSenders.delete(sender.id);
        for (const [k, stop] of [...subscriptions]) if (k.startsWith(`${sender.id}:`)) stop();
      });
    }
    if (live.reset) send(sender, subscription, { kind: 'reset', startId: live.startId });
    send(sender, subscription, { kind: 'ready', startId: live.startId });
    return { ok: true, value: { startId: live.startId } };
  });

  handle(UNSUBSCRIBE_CHANNEL, (event, args) => {
    const { subscription } = parseWith(unsubscribePayload, oneArgument(args));
    subscriptions.get(`${event.sender.id}:${subscription}`)?.();
    return { ok: true, value: null };
  });

  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
    for (const stop of [...subscriptions.values()]) stop();
  };
}

/** For tests and the preload: the channels registerIpc answers on. */
export function ipcChannels(): string[] {
  return [CALL_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL];
}
