import type {
  AlertDeliveryView,
  AlertRuleView,
  DesktopAlertFeed,
  CheckResult,
  BulkResult,
  CommandAck,
  ErrorCount,
  FailureCounts,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSeries,
  DatabaseStatus,
  FlowInfo,
  FlowUsageView,
  CostSplitAnswerView,
  FlowHealthView,
  HivewatchApi,
  Issue,
  IssueDetail,
  JournaledEvent,
  NotificationSettings,
  Page,
  RunCounts,
  RunDetail,
  RunSummary,
} from '../../core/service/api.js';
import { ApiError, apiErrorFrom } from './errors.js';
import { subscribeLive, type LiveStreamEnv } from './live-stream.js';

/**
 * HivewatchApi over the browser shell's HTTP routes: fetch with `Authorization: Bearer <token>`
 * for every call, and the live stream read from `GET /api/stream` with fetch + a ReadableStream
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
    skipBackoff: (input) => post<CommandAck>(`/api/runs/${seg(input.runId)}/tasks/${seg(input.taskId)}/skip-backoff`, rest(input, 'runId', 'taskId')),

    listRuns: (input) => get<Page<RunSummary>>('/api/runs', input),
    countRuns: (input) => get<RunCounts>('/api/runs/counts', input),
    bulkRuns: (input) => post<BulkResult>('/api/runs/bulk', input),
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
    databaseStatus: () => get<DatabaseStatus>('/api/database'),
    checkFlow: (input) => post<CheckResult>('/api/flows/check', input),
    saveFlow: (input) => post<FlowInfo>('/api/flows', input),
    getNotificationSettings: () => get<NotificationSettings>('/api/settings/notifications'),
    setFlowMuted: (input) => post<NotificationSettings>('/api/settings/notifications/mute', input),
    errorCounts: (input) => get<ErrorCount[]>('/api/errors/counts', input),
    failureCounts: (input) => get<FailureCounts>('/api/failures/counts', input),
    errorSeries: (input) => get<ErrorSeries>('/api/errors/series', input),
    errorGroups: (input) => get<ErrorGroup[]>('/api/errors/groups', input),
    listErrors: (input) => get<Page<ErrorOccurrence>>('/api/errors', input),
    listAlertRules: () => get<AlertRuleView[]>('/api/alerts/rules'),
    addAlertRule: (input) => post<AlertRuleView>('/api/alerts/rules', input),
    removeAlertRule: (input) => post<{ removed: boolean }>(`/api/alerts/rules/${seg(input.id)}/remove`, rest(input, 'id')),
    testAlertRule: (input) => post<AlertDeliveryView>(`/api/alerts/rules/${seg(input.id)}/test`, rest(input, 'id')),
    listAlertDeliveries: (input) => get<AlertDeliveryView[]>('/api/alerts/deliveries', input),
    listDesktopAlerts: (input) => get<DesktopAlertFeed>('/api/alerts/desktop', input),
    usageByFlow: (input) => get<FlowUsageView[]>('/api/usage/flows', input),
    costSplit: (input) => get<CostSplitAnswerView>('/api/usage/split', input),
    flowHealth: (input) => get<FlowHealthView[]>('/api/flows/health', input),
    listIssues: (input) => get<Page<Issue>>('/api/issues', input),
    getIssue: (input) => get<Issue>(`/api/issues/${seg(input.id)}`),
    setIssueStatus: (input) => post<Issue>(`/api/issues/${seg(input.id)}/status`, rest(input, 'id')),
    getIssueDetail: (input) => get<IssueDetail>(`/api/issues/${seg(input.id)}/page`, rest(input, 'id')),

    subscribe: (listener, subscribeOptions = {}) => subscribeLive(stream, listener, subscribeOptions),

    close(): void {
      for (const stop of [...stream.closers]) stop();
    },
  };
  return client;
}
