/**
 * The preload of the Hivewatch window. It runs sandboxed (sandbox: true), where a preload must be
 * CommonJS and may require only a few built-ins (`electron` among them): so this file is
 * self-contained (.cts, compiled to preload.cjs) and repeats the list of API methods (a test
 * checks it against core/service/api.ts). It exposes exactly one object, `window.hivewatch`:
 *
 *   invoke(method, input) → Promise<{ok: true, value} | {ok: false, error: {status, code, message}}>
 *   subscribe(afterId, onMessage) → unsubscribe     (messages: batch | reset | ready)
 *
 * `invoke` refuses any method that is not an API method, so the page can reach no other IPC
 * channel; main validates every payload again with the API's schemas.
 */
import type { ApiMethod, BridgeMessage, BridgeReply, HivewatchBridge } from '../core/service/api.js';

export const BRIDGE_METHODS: readonly ApiMethod[] = [
  'startRun',
  'cancelRun',
  'retryRun',
  'resumeRun',
  'skipBackoff',
  'listRuns',
  'countRuns',
  'getRun',
  'getEvents',
  'listFlows',
  'checkFlow',
  'saveFlow',
  'getNotificationSettings',
  'setFlowMuted',
  'errorCounts',
  'failureCounts',
  'errorSeries',
  'errorGroups',
  'listErrors',
  'listAlertRules',
  'addAlertRule',
  'removeAlertRule',
  'testAlertRule',
  'listAlertDeliveries',
  'listDesktopAlerts',
  'usageByFlow',
  'costSplit',
  'flowHealth',
  'bulkRuns',
  'listIssues',
  'getIssue',
  'setIssueStatus',
  'getIssueDetail',
  'databaseStatus',
];

const PREFIX = 'hivewatch:';
export const BRIDGE_CHANNELS = {
  subscribe: `${PREFIX}subscribe`,
  unsubscribe: `${PREFIX}unsubscribe`,
  events: `${PREFIX}events`,
} as const;

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
      if (typeof method !== 'string' || !(BRIDGE_METHODS as readonly string[]).includes(method)) {
        return Promise.reject(new Error(`hivewatch: "${String(method)}" is not an API method`));
      }
      return ipc.invoke(`${PREFIX}${method}`, input) as Promise<BridgeReply>;
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
