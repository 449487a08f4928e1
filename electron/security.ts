import { IPC_PREFIX } from '../core/service/api.js';
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

/**
 * The four IPC channels: every API call on `hivewatch:call` (the method's name is data, checked in
 * main against the API's table), and the live subscription's three.
 */
export const CALL_CHANNEL = `${IPC_PREFIX}call`;
export const SUBSCRIBE_CHANNEL = `${IPC_PREFIX}subscribe`;
export const UNSUBSCRIBE_CHANNEL = `${IPC_PREFIX}unsubscribe`;
export const EVENTS_CHANNEL = `${IPC_PREFIX}events`;

export function isHivewatchChannel(channel: unknown): boolean {
  return channel === CALL_CHANNEL || channel === SUBSCRIBE_CHANNEL || channel === UNSUBSCRIBE_CHANNEL || channel === EVENTS_CHANNEL;
}
