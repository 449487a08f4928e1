import type {
  CheckResult,
  CommandAck,
  ErrorCount,
  FailureCounts,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSeries,
  FlowInfo,
  HivewatchApi,
  HivewatchEvent,
  JournaledEvent,
  LiveEvent,
  NotificationSettings,
  Page,
  RunCounts,
  RunDetail,
  RunSummary,
  SubscribeOptions,
} from '../../core/service/api.js';
import { ApiError, apiErrorFrom } from './errors.js';
import { SseParser } from './sse.js';

/**
 * HivewatchApi over the browser shell's HTTP routes: fetch with `Authorization: Bearer <token>`
 * for every call, and the live stream read from `GET /api/stream` with fetch + a ReadableStream
 * (EventSource cannot send the header, and the credential is never a cookie: cookies ignore
 * ports, docs/decisions.md "The access credential stays on its port"). The stream reconnects on its own with `Last-Event-ID`
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

function queryString(input: Query | undefined, omit: readonly string[] = []): string {
  if (!input) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null || omit.includes(key)) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

const seg = (value: string): string => encodeURIComponent(value);

/** `<instance>.<id>` → parts; a bare number has no instance. */
function splitLiveId(text: string | undefined): { instance: string | null; id: number } | null {
  if (text === undefined) return null;
  const match = /^(?:([0-9a-z]+)\.)?(\d+)$/.exec(text);
  return match ? { instance: match[1] ?? null, id: Number(match[2]) } : null;
}

export function createHttpClient(options: HttpClientOptions): HttpApiClient {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  // No token (a browser that never opened the printed URL): send no header, so the server says
  // "missing token" (an empty "Bearer " would read as a wrong token).
  const auth: Record<string, string> = options.token === '' ? {} : { Authorization: `Bearer ${options.token}` };
  const firstDelay = options.reconnectDelayMs ?? 500;
  const maxDelay = options.maxReconnectDelayMs ?? 2_000;
  const stallMs = options.stallMs ?? 4_000;
  const closers = new Set<() => void>();
  /** The server instance the last live id came from: afterId numbers are that instance's. */
  let instance: string | null = null;

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

  const get = <T>(path: string, input?: object, omit?: readonly string[]): Promise<T> =>
    request<T>('GET', `${path}${queryString(input as Query | undefined, omit)}`);
  const post = <T>(path: string, body?: object): Promise<T> => request<T>('POST', path, body);

  /** Body fields other than the ids that went into the path. */
  const rest = <I extends object>(input: I, ...keys: string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input ?? {})) if (!keys.includes(key)) out[key] = value;
    return out;
  };

  const client: HttpApiClient = {
    startRun: (input) => post<{ runId: string }>('/api/runs', input),
    cancelRun: (input) => post<CommandAck>(`/api/runs/${seg(input.runId)}/cancel`, rest(input, 'runId')),
    retryRun: (input) => post<{ runId: string }>(`/api/runs/${seg(input.runId)}/retry`, rest(input, 'runId')),
    resumeRun: (input) => post<{ runId: string }>(`/api/runs/${seg(input.runId)}/resume`, rest(input, 'runId')),
    skipBackoff: (input) =>
      post<CommandAck>(`/api/runs/${seg(input.runId)}/tasks/${seg(input.taskId)}/skip-backoff`, rest(input, 'runId', 'taskId')),

    listRuns: (input) => get<Page<RunSummary>>('/api/runs', input),
    countRuns: (input) => get<RunCounts>('/api/runs/counts', input),
    getRun: async (input) => {
      try {
        return await get<RunDetail>(`/api/runs/${seg(input.runId)}`, input, ['runId']);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404 && error.code === 'run_not_found') return null;
        throw error;
      }
    },
    getEvents: (input) => get<JournaledEvent[]>(`/api/runs/${seg(input.runId)}/events`, input, ['runId']),
    listFlows: () => get<FlowInfo[]>('/api/flows'),
    checkFlow: (input) => post<CheckResult>('/api/flows/check', input),
    saveFlow: (input) => post<FlowInfo>('/api/flows', input),
    getNotificationSettings: () => get<NotificationSettings>('/api/settings/notifications'),
    setFlowMuted: (input) => post<NotificationSettings>('/api/settings/notifications/mute', input),
    errorCounts: (input) => get<ErrorCount[]>('/api/errors/counts', input),
    failureCounts: (input) => get<FailureCounts>('/api/failures/counts', input),
    errorSeries: (input) => get<ErrorSeries>('/api/errors/series', input),
    errorGroups: (input) => get<ErrorGroup[]>('/api/errors/groups', input),
    listErrors: (input) => get<Page<ErrorOccurrence>>('/api/errors', input),

    subscribe(listener: (batch: LiveEvent[]) => void, subscribeOptions: SubscribeOptions = {}): () => void {
      const controller = new AbortController();
      let stopped = false;
      const afterId = subscribeOptions.afterId ?? 0;
      let lastId: string | null = afterId > 0 ? (instance !== null ? `${instance}.${afterId}` : String(afterId)) : null;

      /** Whether the last connection reached `ready` (an outage is reported once, not per attempt). */
      let connected = false;
      const disconnected = (): void => {
        if (stopped) return;
        connected = false;
        subscribeOptions.onDisconnect?.();
      };

      const consume = async (response: Response, connection: AbortController): Promise<void> => {
        if (!response.body) throw new Error('the stream has no body');
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        // Silence longer than stallMs (no event, no heartbeat): the server or the path to it is gone.
        let stall: ReturnType<typeof setTimeout> | undefined;
        const arm = (): void => {
          clearTimeout(stall);
          stall = setTimeout(() => {
            connection.abort();
            // Ends a read that is waiting on a body the abort does not reach (a proxied stream).
            reader.cancel().catch(() => undefined);
          }, stallMs);
        };
        arm();
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done || stopped) return;
            arm();
            let batch: LiveEvent[] = [];
            const flush = (): void => {
              if (batch.length > 0 && !stopped) listener(batch);
              batch = [];
            };
            for (const message of parser.push(value)) {
              const id = splitLiveId(message.id);
              if (message.id !== undefined) lastId = message.id;
              if (id?.instance) instance = id.instance;
              if (message.event === 'hw' && id) {
                batch.push({ id: id.id, event: JSON.parse(message.data) as HivewatchEvent });
              } else if (message.event === 'reset') {
                flush();
                if (!stopped) subscribeOptions.onReset?.();
              } else if (message.event === 'ready') {
                flush();
                connected = true;
                if (!stopped) subscribeOptions.onReady?.(id?.id ?? 0);
              }
            }
            flush();
          }
        } finally {
          clearTimeout(stall);
          reader.releaseLock();
        }
      };

      const run = async (): Promise<void> => {
        let delay = firstDelay;
        let first = true;
        while (!stopped) {
          const connection = new AbortController();
          const abort = (): void => connection.abort();
          controller.signal.addEventListener('abort', abort, { once: true });
          try {
            const headers: Record<string, string> = { ...auth, Accept: 'text/event-stream' };
            if (lastId !== null) headers['Last-Event-ID'] = lastId;
            const response = await fetchImpl(`${base}/api/stream`, { headers, cache: 'no-store', signal: connection.signal });
            if (!response.ok) {
              const body: unknown = await response.json().catch(() => undefined);
              throw apiErrorFrom(response.status, body, `GET /api/stream: HTTP ${response.status}`);
            }
            delay = firstDelay;
            await consume(response, connection);
          } catch {
            // Dropped, refused, stalled or aborted: try again below unless stopped.
          } finally {
            controller.signal.removeEventListener('abort', abort);
          }
          if (stopped) return;
          // Report the outage once: when a live connection ends, or when the very first attempt fails.
          if (connected || first) disconnected();
          first = false;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delay);
            controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
          delay = Math.min(delay * 2, maxDelay);
        }
      };

      const stop = (): void => {
        if (stopped) return;
        stopped = true;
        controller.abort();
        closers.delete(stop);
      };
      closers.add(stop);
      void run();
      return stop;
    },

    close(): void {
      for (const stop of [...closers]) stop();
    },
  };
  return client;
}
