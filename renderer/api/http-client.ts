import { API_METHODS, API_ROUTES, pathParams, type ApiMethod, type ApiRoute } from '../../core/common/api-routes.js';
import type { HivewatchApi } from '../../core/service/api.js';
import { ApiError, apiErrorFrom } from '../../core/common/api-errors.js';
import { subscribeLive, type LiveStreamEnv } from './live-stream.js';
import { readBatcher, type BatchAnswer } from './read-batch.js';

/**
 * HivewatchApi over the browser shell's HTTP routes, each method as the API's table
 * (core/common/api-routes.ts) says: fetch with `Authorization: Bearer <token>` for every call, and the live stream read from `GET /api/stream` with fetch + a ReadableStream
 * (EventSource cannot send the header, and the credential is never a cookie: cookies ignore
 * ports, docs/decisions/0017-browser-shell-access.md "The access credential stays on its port"). The stream reconnects on its own with `Last-Event-ID`
 * (the last id it saw, instance included), so a dropped connection loses nothing the server
 * still has; when the server cannot resume (restarted, or too far behind) it says `reset` and
 * `onReset` runs.
 */

export interface HttpClientOptions {
  /** Default: the page's own origin (''). */
  baseUrl?: string;
  token: string;
  fetch?: typeof fetch;
  /** First reconnect delay (doubling up to `maxReconnectDelayMs`). Default 500 ms. */
  reconnectDelayMs?: number;
  /** Default 2 s: a restarted local server is found again within that. */
  maxReconnectDelayMs?: number;
  /**
   * A connection that delivers nothing (not even the server's 2 s heartbeat) for this long is
   * dropped and reconnected, and `onDisconnect` runs. Default 4 s: the window says
   * "reconnecting" within 5 s of the stream going quiet.
   */
  stallMs?: number;
}

export interface HttpApiClient extends HivewatchApi {
  /** Stops every open subscription. */
  close(): void;
}

type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

function queryString(input: Query | undefined): string {
  if (!input) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

const seg = (value: string): string => encodeURIComponent(value);

export function createHttpClient(options: HttpClientOptions): HttpApiClient {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  // No token (a browser that never opened the printed URL): send no header, so the server says
  // "missing token" (an empty "Bearer " would read as a wrong token).
  const auth: Record<string, string> = options.token === '' ? {} : { Authorization: `Bearer ${options.token}` };
  const stream: LiveStreamEnv = {
    url: `${base}/api/stream`,
    auth,
    fetchImpl,
    firstDelay: options.reconnectDelayMs ?? 500,
    maxDelay: options.maxReconnectDelayMs ?? 2_000,
    stallMs: options.stallMs ?? 4_000,
    closers: new Set<() => void>(),
    instance: null,
  };

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { ...auth, Accept: 'application/json' };
    const init: RequestInit = { method, headers, cache: 'no-store' };
    if (method === 'POST') {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body ?? {});
    }
    const response = await fetchImpl(`${base}${path}`, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw apiErrorFrom(response.status, parsed, `${method} ${path}: HTTP ${response.status}`);
    return parsed as T;
  }

  const reads = readBatcher((calls) => request<BatchAnswer>('POST', '/api/batch', { calls }));

  /** One API method over HTTP, as its table entry says: ids into the path, the rest as query or body. */
  const call =
    (method: ApiMethod) =>
    async (input?: Record<string, unknown>): Promise<unknown> => {
      const spec: ApiRoute = API_ROUTES[method];
      const inPath = pathParams(spec.path);
      const path = spec.path.replace(/:([A-Za-z]+)/g, (_, key: string) => seg(String(input?.[key])));
      const rest: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(input ?? {})) if (!inPath.includes(key)) rest[key] = value;
      try {
        if (spec.verb === 'POST') return await request('POST', path, rest);
        return await reads.read(method, input, () => request('GET', `${path}${queryString(rest as Query)}`));
      } catch (error) {
        if (spec.nullAs !== undefined && error instanceof ApiError && error.status === 404 && error.apiCode === spec.nullAs) return null;
        throw error;
      }
    };

  const client: HttpApiClient = {
    ...(Object.fromEntries(API_METHODS.map((method) => [method, call(method)])) as unknown as Omit<HivewatchApi, 'subscribe'>),
    subscribe: (listener, subscribeOptions = {}) => subscribeLive(stream, listener, subscribeOptions),

    close(): void {
      for (const stop of [...stream.closers]) stop();
    },
  };
  return client;
}
