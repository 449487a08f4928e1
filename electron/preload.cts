/**
 * The preload of the Hivewatch window. It runs sandboxed (sandbox: true), where a preload must be
 * CommonJS and may require only a few built-ins (`electron` among them): so this file is
 * self-contained (.cts, compiled to preload.cjs). It holds no list of API methods: every call goes
 * on one channel with the method's name, and main answers only the names in the API's table
 * (core/common/api-routes.ts). It exposes exactly one object, `window.hivewatch`:
 *
 *   invoke(method, input) → Promise<{ok: true, value} | {ok: false, error: {status, code, message}}>
 *   subscribe(afterId, onMessage) → unsubscribe     (messages: batch | reset | ready | alerts)
 *
 * The page can reach no other IPC channel; `invoke` refuses a name that cannot be a method's, and
 * main refuses an unknown name (404 `unknown_method`) and validates every input with the API's
 * schemas.
 */
import type { ApiMethod, BridgeMessage, BridgeReply, HivewatchBridge } from '../core/service/api.js';

const PREFIX = 'hivewatch:';
export const BRIDGE_CHANNELS = {
  call: `${PREFIX}call`,
  subscribe: `${PREFIX}subscribe`,
  unsubscribe: `${PREFIX}unsubscribe`,
  events: `${PREFIX}events`,
} as const;

/** The shape of a method's name; which names exist is main's check, against the API's table. */
const METHOD_NAME = /^[A-Za-z]{1,64}$/;

/** What the bridge needs of `ipcRenderer` (so tests can drive it without Electron). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
}

export function createBridge(ipc: IpcRendererLike): HivewatchBridge {
  const tag = Math.random().toString(36).slice(2, 10);
  let counter = 0;
  const bridge: HivewatchBridge = {
    invoke(method: ApiMethod, input?: unknown): Promise<BridgeReply> {
      if (typeof method !== 'string' || !METHOD_NAME.test(method)) {
        return Promise.reject(new Error(`hivewatch: "${String(method).slice(0, 80)}" is not an API method name`));
      }
      return ipc.invoke(BRIDGE_CHANNELS.call, method, input) as Promise<BridgeReply>;
    },
    subscribe(afterId: number, onMessage: (message: BridgeMessage) => void): () => void {
      if (!Number.isSafeInteger(afterId) || afterId < 0) throw new TypeError('hivewatch.subscribe: afterId must be a whole number ≥ 0');
      if (typeof onMessage !== 'function') throw new TypeError('hivewatch.subscribe: onMessage must be a function');
      const subscription = `sub_${tag}_${++counter}`;
      let active = true;
      const listener = (_event: unknown, message: unknown): void => {
        const m = message as (BridgeMessage & { subscription?: unknown }) | null;
        if (!active || m === null || typeof m !== 'object' || m.subscription !== subscription) return;
        if (m.kind === 'batch') onMessage({ kind: 'batch', events: m.events });
        else if (m.kind === 'reset' || m.kind === 'ready') onMessage({ kind: m.kind, startId: m.startId });
        else if (m.kind === 'alerts') onMessage({ kind: 'alerts', desktop: m.desktop === true });
      };
      ipc.on(BRIDGE_CHANNELS.events, listener);
      ipc.invoke(BRIDGE_CHANNELS.subscribe, { subscription, afterId }).catch(() => undefined);
      return () => {
        if (!active) return;
        active = false;
        ipc.removeListener(BRIDGE_CHANNELS.events, listener);
        ipc.invoke(BRIDGE_CHANNELS.unsubscribe, { subscription }).catch(() => undefined);
      };
    },
  };
  return Object.freeze(bridge);
}

const electronProcess = typeof process === 'undefined' ? undefined : (process as { type?: string; versions?: Record<string, string | undefined> });
if (electronProcess?.versions?.electron && electronProcess.type === 'renderer') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');
  contextBridge.exposeInMainWorld('hivewatch', createBridge(ipcRenderer));
}
