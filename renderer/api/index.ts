import type { HivewatchApi, HivewatchBridge } from '../../core/service/api.js';
import { TOKEN_STORAGE_KEY } from './constants.js';
import { createHttpClient } from './http-client.js';
import { createIpcClient } from './ipc-client.js';

export { ApiError } from './errors.js';
export { createHttpClient, type HttpApiClient, type HttpClientOptions } from './http-client.js';
export { createIpcClient } from './ipc-client.js';
export { API_METHODS, TOKEN_STORAGE_KEY } from './constants.js';

declare global {
  interface Window {
    /** Present in the Electron window only (the preload's one object). */
    hivewatch?: HivewatchBridge;
  }
}

/**
 * The browser shell's token: taken from `?token=` on the first load, kept in sessionStorage
 * (it survives reloads of this tab, not the browser), and removed from the address bar so it
 * does not linger in history, bookmarks or screenshots.
 */
export function takeToken(win: Window = window): string {
  const url = new URL(win.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    win.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    url.searchParams.delete('token');
    win.history.replaceState(win.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  return win.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
}

let shared: HivewatchApi | null = null;

/** The API for this window: Electron's IPC bridge when present, else HTTP to the page's origin. */
export function getApi(win: Window = window): HivewatchApi {
  if (shared) return shared;
  shared = win.hivewatch ? createIpcClient(win.hivewatch) : createHttpClient({ token: takeToken(win) });
  return shared;
}
