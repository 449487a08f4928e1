import type { ApiErrorCode } from './api-errors.js';

/**
 * The API's one list of methods and where each travels (docs/howto/add-an-api-method.md): the service implements
 * these names (`HivewatchApi` in core/service/api.ts, checked against this table at compile time),
 * the browser shell's routes (server/routes.ts) and its HTTP client (renderer/api/http-client.ts)
 * are derived from the entries, and Electron's main process accepts exactly these names on its one
 * call channel. A new method is one entry here, its types and schema, and its service method.
 *
 * An entry's `path` takes `:name` segments from the input of the same name; the rest of the input
 * travels as the query string (GET; `numbers` are read back as numbers, `lists` as comma lists) or
 * the JSON body (POST).
 */
export interface ApiRoute {
  verb: 'GET' | 'POST';
  path: string;
  /** The success status when it is not 200 (a command that creates something answers 201). */
  created?: true;
  /** GET: query keys read as numbers when they look like one (else the schema says "must be a number"). */
  numbers?: readonly string[];
  /** GET: query keys that are comma lists. */
  lists?: readonly string[];
  /** A null answer travels as a 404 with this code, and the client turns that 404 back into null. */
  nullAs?: ApiErrorCode;
  /** The method takes no input at all (the service method has no parameter). */
  noInput?: true;
}

const WINDOW_NUMBERS = ['since', 'until'] as const;
const FILTER_NUMBERS = [...WINDOW_NUMBERS, 'limit'] as const;

export const API_ROUTES = {
  startRun: { verb: 'POST', path: '/api/runs', created: true },
  cancelRun: { verb: 'POST', path: '/api/runs/:runId/cancel' },
  retryRun: { verb: 'POST', path: '/api/runs/:runId/retry', created: true },
  resumeRun: { verb: 'POST', path: '/api/runs/:runId/resume', created: true },
  skipBackoff: { verb: 'POST', path: '/api/runs/:runId/tasks/:taskId/skip-backoff' },
  listRuns: { verb: 'GET', path: '/api/runs', numbers: FILTER_NUMBERS, lists: ['status'] },
  countRuns: { verb: 'GET', path: '/api/runs/counts', numbers: WINDOW_NUMBERS, lists: ['status'] },
  getRun: { verb: 'GET', path: '/api/runs/:runId', nullAs: 'run_not_found' },
  getEvents: { verb: 'GET', path: '/api/runs/:runId/events', numbers: ['afterSeq', 'limit'] },
  listFlows: { verb: 'GET', path: '/api/flows', noInput: true },
  checkFlow: { verb: 'POST', path: '/api/flows/check' },
  saveFlow: { verb: 'POST', path: '/api/flows', created: true },
  getNotificationSettings: { verb: 'GET', path: '/api/settings/notifications', noInput: true },
  setFlowMuted: { verb: 'POST', path: '/api/settings/notifications/mute' },
  errorCounts: { verb: 'GET', path: '/api/errors/counts', numbers: FILTER_NUMBERS },
  failureCounts: { verb: 'GET', path: '/api/failures/counts', numbers: FILTER_NUMBERS },
  errorSeries: { verb: 'GET', path: '/api/errors/series', numbers: WINDOW_NUMBERS },
  errorGroups: { verb: 'GET', path: '/api/errors/groups', numbers: [...FILTER_NUMBERS, 'trendBins'] },
  listErrors: { verb: 'GET', path: '/api/errors', numbers: FILTER_NUMBERS },
  listAlertRules: { verb: 'GET', path: '/api/alerts/rules', noInput: true },
  addAlertRule: { verb: 'POST', path: '/api/alerts/rules', created: true },
  removeAlertRule: { verb: 'POST', path: '/api/alerts/rules/:id/remove' },
  testAlertRule: { verb: 'POST', path: '/api/alerts/rules/:id/test' },
  listAlertDeliveries: { verb: 'GET', path: '/api/alerts/deliveries', numbers: ['limit'] },
  listDesktopAlerts: { verb: 'GET', path: '/api/alerts/desktop', numbers: ['after'] },
  usageByFlow: { verb: 'GET', path: '/api/usage/flows', numbers: WINDOW_NUMBERS },
  costliestRuns: { verb: 'GET', path: '/api/usage/runs', numbers: FILTER_NUMBERS },
  costSplit: { verb: 'GET', path: '/api/usage/split', numbers: WINDOW_NUMBERS },
  flowHealth: { verb: 'GET', path: '/api/flows/health', numbers: WINDOW_NUMBERS },
  bulkRuns: { verb: 'POST', path: '/api/runs/bulk' },
  listIssues: { verb: 'GET', path: '/api/issues', numbers: FILTER_NUMBERS },
  getIssue: { verb: 'GET', path: '/api/issues/:id' },
  setIssueStatus: { verb: 'POST', path: '/api/issues/:id/status' },
  getIssueDetail: { verb: 'GET', path: '/api/issues/:id/page', numbers: WINDOW_NUMBERS },
  databaseStatus: { verb: 'GET', path: '/api/database', noInput: true },
} as const satisfies Record<string, ApiRoute>;

export type ApiMethod = keyof typeof API_ROUTES;

/** Every method's name, in the table's order. */
export const API_METHODS = Object.keys(API_ROUTES) as ApiMethod[];

/** Whether a name from outside (an IPC payload) is one of the API's methods; never an inherited key. */
export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.hasOwn(API_ROUTES, name);
}

/** The `:name` segments of a path, in order. */
export function pathParams(path: string): string[] {
  return path
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => part.slice(1));
}
