import { API_METHODS, IPC_PREFIX, type ApiMethod } from '../core/service/api.js';
import { CONTENT_SECURITY_POLICY } from '../shell-common/content-policy.js';

/**
 * The Electron window's security, as plain data and functions (no `electron` import) so a test
 * checks them without an Electron binary; main.ts only wires them in.
 */

export { CONTENT_SECURITY_POLICY };

/** The renderer is served from this privileged, standard, secure scheme (not file://). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'hivewatch';
const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** The options of every Hivewatch window. `preload` must be the compiled CommonJS preload (preload.cjs). */
export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export function windowOptions(preload: string, bounds: WindowBounds) {
  return {
    ...bounds,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Hivewatch',
    backgroundColor: '#111418',
    autoHideMenuBar: true,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  } as const;
}

/** Whether a URL belongs to the app (its scheme and host exactly). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

interface PreventableEvent {
  preventDefault(): void;
}

/**
 * `will-navigate` / `will-redirect` / `will-frame-navigate`: the window never leaves the app. Only a
 * navigation to another page of the app itself is let through; everything else is prevented.
 */
export function handleWillNavigate(event: PreventableEvent, url: string): boolean {
  if (isAppUrl(url)) return true;
  event.preventDefault();
  return false;
}

/** `setWindowOpenHandler`: no new windows, ever. */
export function windowOpenHandler(_details: { url: string }): { action: 'deny' } {
  return { action: 'deny' };
}

/** `will-attach-webview`: no webviews (webviewTag is off too; belt and braces). */
export function handleWillAttachWebview(event: PreventableEvent): void {
  event.preventDefault();
}

/** Permission requests (camera, notifications from the page, geolocation, ...): all denied. */
export function permissionRequestHandler(_webContents: unknown, _permission: string, callback: (granted: boolean) => void): void {
  callback(false);
}

/** Response headers with the CSP set (any CSP the response had is replaced). */
export function withCsp(headers: Record<string, string[] | string> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}

/** The IPC channels: one per API method, plus the live subscription's three. */
export const SUBSCRIBE_CHANNEL = `${IPC_PREFIX}subscribe`;
export const UNSUBSCRIBE_CHANNEL = `${IPC_PREFIX}unsubscribe`;
export const EVENTS_CHANNEL = `${IPC_PREFIX}events`;

export function channelOf(method: ApiMethod): string {
  return `${IPC_PREFIX}${method}`;
}

/** The API method a channel names, or null for any other channel. */
export function methodOfChannel(channel: unknown): ApiMethod | null {
  if (typeof channel !== 'string' || !channel.startsWith(IPC_PREFIX)) return null;
  const name = channel.slice(IPC_PREFIX.length);
  return (API_METHODS as readonly string[]).includes(name) ? (name as ApiMethod) : null;
}

export function isHivewatchChannel(channel: unknown): boolean {
  return methodOfChannel(channel) !== null || channel === SUBSCRIBE_CHANNEL || channel === UNSUBSCRIBE_CHANNEL || channel === EVENTS_CHANNEL;
}
