import { useSyncExternalStore } from 'react';

/**
 * Routes live in the URL hash (`#/runs?status=failed`), so they work the same from the browser
 * shell (whose `?token=` stays in the query string, untouched) and from a file:// page in
 * Electron, and the back button walks through filters and drill-downs.
 */

export interface Route {
  /** Path segments, decoded: `#/runs/run_1` → ['runs', 'run_1']. */
  path: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  const pathPart = q === -1 ? raw : raw.slice(0, q);
  const query = q === -1 ? '' : raw.slice(q + 1);
  const path = pathPart
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { path, params: new URLSearchParams(query) };
}

export function formatHash(path: readonly string[], params?: URLSearchParams | Record<string, string | undefined>): string {
  const search = params instanceof URLSearchParams ? params : new URLSearchParams();
  if (params && !(params instanceof URLSearchParams)) {
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, v);
  }
  const query = search.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
}

export function hrefToRun(runId: string, params?: Record<string, string | undefined>): string {
  return formatHash(['runs', runId], params);
}

/** Two runs side by side: `before` on the left (the older, or the one retried), `after` on the right. */
export function hrefToCompare(before: string, after: string): string {
  return formatHash(['compare', before, after]);
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

const getHash = (): string => window.location.hash;

/** The current route; re-renders on every hash change. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, getHash, () => '');
  // Parsing is cheap; a memo keyed on the string keeps identities stable for effects.
  return cachedParse(hash);
}

let lastHash: string | null = null;
let lastRoute: Route = { path: [], params: new URLSearchParams() };
function cachedParse(hash: string): Route {
  if (hash !== lastHash) {
    lastHash = hash;
    lastRoute = parseHash(hash);
  }
  return lastRoute;
}

/** Goes to a hash. `replace` keeps history clean for typing in a filter. */
export function navigate(hash: string, options: { replace?: boolean } = {}): void {
  if (window.location.hash === hash) return;
  if (options.replace) {
    const url = new URL(window.location.href);
    url.hash = hash;
    window.history.replaceState(window.history.state, '', url);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = hash;
  }
}
