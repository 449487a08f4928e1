import type { HivewatchApi, HivewatchBridge } from '../../core/service/api.js';
import { TOKEN_STORAGE_KEY } from './constants.js';
import { createHttpClient } from './http-client.js';
import { createIpcClient } from './ipc-client.js';

declare global {
  interface Window {
    /** Present in the Electron window only (the preload's one object). */
    hivewatch?: HivewatchBridge;
  }
}

/**
 * The browser shell's token: taken from `?token=` on the first load, kept in localStorage and
 * removed from the address bar so it does not linger in history, bookmarks or screenshots.
 * localStorage is scoped by origin, and the origin includes the port: another tab of this
 * server (a copied link, which has no token) reads it, a page of any other port on 127.0.0.1
 * cannot, and nothing sends it anywhere but as this client's `Authorization` header (cookies,
 * which ignore ports, are not used: docs/decisions/0017-browser-shell-access.md "The access credential stays on its port").
 */
export function takeToken(win: Window = window): string {
  const url = new URL(win.location.href);
  const fromUrl = url.searchParams.get('token');
  const storage = tokenStorage(win);
  if (fromUrl !== null) {
    try {
      storage?.setItem(TOKEN_STORAGE_KEY, fromUrl);
    } catch {
      // Full or refused: this tab keeps working; a copied link will ask for the printed URL.
    }
    url.searchParams.delete('token');
    win.history.replaceState(win.history.state, '', `${url.pathname}${url.search}${url.hash}`);
    return fromUrl;
  }
  try {
    return storage?.getItem(TOKEN_STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The origin's localStorage, or null where the browser refuses it (storage disabled): the token then lives in this page only. */
function tokenStorage(win: Window): Storage | null {
  try {
    return win.localStorage;
  } catch {
    return null;
  }
}

let shared: HivewatchApi | null = null;
let sharedToken: string | null = null;

/** Whether this window can call the API: the desktop window always can; the browser shell with a token. */
export function hasAccess(win: Window = window): boolean {
  getApi(win);
  return win.hivewatch !== undefined || (sharedToken ?? '') !== '';
}

/** The API for this window: Electron's IPC bridge when present, else HTTP to the page's origin. */
export function getApi(win: Window = window): HivewatchApi {
  if (shared) return shared;
  if (win.hivewatch) shared = createIpcClient(win.hivewatch);
  else {
    sharedToken = takeToken(win);
    shared = createHttpClient({ token: sharedToken });
  }
  return shared;
}
