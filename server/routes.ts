import type { ApiMethod } from '../core/service/api.js';
import { ApiError } from '../core/service/errors.js';
import type { HivewatchService } from '../core/service/service.js';
import { parseInput } from '../core/service/schemas.js';

/**
 * The JSON routes: one per API call. GET inputs come from the query string (numbers converted,
 * comma lists split); POST inputs from the JSON body, with ids from the path. Every input is
 * validated with the API's schemas here, before the service (which validates again: the same
 * schema, so the same message).
 */

interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

interface RouteResult {
  status: number;
  body: unknown;
}

export interface Route {
  method: 'GET' | 'POST';
  /** e.g. `/api/runs/:runId/cancel` */
  path: string;
  apiMethod: ApiMethod;
  /** Whether the route reads a JSON body. */
  body: boolean;
  handle(service: HivewatchService, request: RouteRequest): Promise<RouteResult>;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Query string → input object. `numbers` become numbers when they look like one (otherwise the
 * string reaches the schema, which says "must be a number"); `lists` are comma lists; any other
 * key given twice is an error.
 */
export function queryInput(query: URLSearchParams, spec: { numbers?: readonly string[]; lists?: readonly string[] } = {}): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    if (spec.lists?.includes(key)) {
      input[key] = values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
      continue;
    }
    if (values.length > 1) throw new ApiError(400, 'invalid_input', `${key}: given more than once`);
    const value = values[0] as string;
    input[key] = spec.numbers?.includes(key) && NUMBER.test(value) ? Number(value) : value;
  }
  return input;
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'invalid_input', 'input must be an object');
  return body as Record<string, unknown>;
}

const FILTER_NUMBERS = ['since', 'until', 'limit'] as const;

const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/runs',
    apiMethod: 'listRuns',
    body: false,
    handle: async (s, r) => ok(await s.listRuns(parseInput('listRuns', queryInput(r.query, { numbers: FILTER_NUMBERS, lists: ['status'] })))),
  },
  {
    // Before /api/runs/:runId, which would take "counts" for a run id.
    method: 'GET',
    path: '/api/runs/counts',
    apiMethod: 'countRuns',
    body: false,
    handle: async (s, r) => ok(await s.countRuns(parseInput('countRuns', queryInput(r.query, { numbers: ['since', 'until'], lists: ['status'] })))),
  },
  {
    method: 'POST',
    path: '/api/runs',
    apiMethod: 'startRun',
    body: true,
    handle: async (s, r) => ok(await s.startRun(parseInput('startRun', bodyObject(r.body))), 201),
  },
  {
    method: 'POST',
    path: '/api/runs/bulk',
    apiMethod: 'bulkRuns',
    body: true,
    handle: async (s, r) => ok(await s.bulkRuns(parseInput('bulkRuns', bodyObject(r.body)))),
  },
  {
    method: 'GET',
    path: '/api/runs/:runId',
    apiMethod: 'getRun',
    body: false,
    handle: async (s, r) => {
      const input = parseInput('getRun', { ...queryInput(r.query), runId: r.params.runId });
      const detail = await s.getRun(input);
      if (detail === null) throw new ApiError(404, 'run_not_found', `no run ${input.runId}`);
      return ok(detail);
    },
  },
  {
    method: 'GET',
    path: '/api/runs/:runId/events',
    apiMethod: 'getEvents',
    body: false,
    handle: async (s, r) =>
      ok(await s.getEvents(parseInput('getEvents', { ...queryInput(r.query, { numbers: ['afterSeq', 'limit'] }), runId: r.params.runId }))),
  },
  {
    method: 'POST',
    path: '/api/runs/:runId/cancel',
    apiMethod: 'cancelRun',
    body: true,
    handle: async (s, r) => ok(await s.cancelRun(parseInput('cancelRun', { ...bodyObject(r.body), runId: r.params.runId }))),
  },
  {
    method: 'POST',
    path: '/api/runs/:runId/retry',
    apiMethod: 'retryRun',
    body: true,
    handle: async (s, r) => ok(await s.retryRun(parseInput('retryRun', { ...bodyObject(r.body), runId: r.params.runId })), 201),
  },
  {
    method: 'POST',
    path: '/api/runs/:runId/resume',
    apiMethod: 'resumeRun',
    body: true,
    handle: async (s, r) => ok(await s.resumeRun(parseInput('resumeRun', { ...bodyObject(r.body), runId: r.params.runId })), 201),
  },
  {
    method: 'POST',
    path: '/api/runs/:runId/tasks/:taskId/skip-backoff',
    apiMethod: 'skipBackoff',
    body: true,
    handle: async (s, r) => ok(await s.skipBackoff(parseInput('skipBackoff', { ...bodyObject(r.body), runId: r.params.runId, taskId: r.params.taskId }))),
  },
  {
    method: 'GET',
    path: '/api/database',
    apiMethod: 'databaseStatus',
    body: false,
    handle: async (s, r) => {
      parseInput('databaseStatus', queryInput(r.query));
      return ok(await s.databaseStatus());
    },
  },
  {
    method: 'GET',
    path: '/api/flows',
    apiMethod: 'listFlows',
    body: false,
    handle: async (s, r) => {
      parseInput('listFlows', queryInput(r.query));
      return ok(await s.listFlows());
    },
  },
  {
    method: 'POST',
    path: '/api/flows/check',
    apiMethod: 'checkFlow',
    body: true,
    handle: async (s, r) => ok(await s.checkFlow(parseInput('checkFlow', bodyObject(r.body)))),
  },
  {
    method: 'POST',
    path: '/api/flows',
    apiMethod: 'saveFlow',
    body: true,
    handle: async (s, r) => ok(await s.saveFlow(parseInput('saveFlow', bodyObject(r.body))), 201),
  },
  {
    method: 'GET',
    path: '/api/settings/notifications',
    apiMethod: 'getNotificationSettings',
    body: false,
    handle: async (s, r) => {
      parseInput('getNotificationSettings', queryInput(r.query));
      return ok(await s.getNotificationSettings());
    },
  },
  {
    method: 'POST',
    path: '/api/settings/notifications/mute',
    apiMethod: 'setFlowMuted',
    body: true,
    handle: async (s, r) => ok(await s.setFlowMuted(parseInput('setFlowMuted', bodyObject(r.body)))),
  },
  {
    method: 'GET',
    path: '/api/alerts/rules',
    apiMethod: 'listAlertRules',
    body: false,
    handle: async (s, r) => {
      parseInput('listAlertRules', queryInput(r.query));
      return ok(await s.listAlertRules());
    },
  },
  {
    method: 'POST',
    path: '/api/alerts/rules',
    apiMethod: 'addAlertRule',
    body: true,
    handle: async (s, r) => ok(await s.addAlertRule(parseInput('addAlertRule', bodyObject(r.body))), 201),
  },
  {
    method: 'POST',
    path: '/api/alerts/rules/:id/remove',
    apiMethod: 'removeAlertRule',
    body: true,
    handle: async (s, r) => ok(await s.removeAlertRule(parseInput('removeAlertRule', { ...bodyObject(r.body), id: r.params.id }))),
  },
  {
    method: 'POST',
    path: '/api/alerts/rules/:id/test',
    apiMethod: 'testAlertRule',
    body: true,
    handle: async (s, r) => ok(await s.testAlertRule(parseInput('testAlertRule', { ...bodyObject(r.body), id: r.params.id }))),
  },
  {
    method: 'GET',
    path: '/api/alerts/deliveries',
    apiMethod: 'listAlertDeliveries',
    body: false,
    handle: async (s, r) => ok(await s.listAlertDeliveries(parseInput('listAlertDeliveries', queryInput(r.query, { numbers: ['limit'] })))),
  },
  {
    method: 'GET',
    path: '/api/alerts/desktop',
    apiMethod: 'listDesktopAlerts',
    body: false,
    handle: async (s, r) => ok(await s.listDesktopAlerts(parseInput('listDesktopAlerts', queryInput(r.query, { numbers: ['after'] })))),
  },
  {
    method: 'GET',
    path: '/api/errors/counts',
    apiMethod: 'errorCounts',
    body: false,
    handle: async (s, r) => ok(await s.errorCounts(parseInput('errorCounts', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/failures/counts',
    apiMethod: 'failureCounts',
    body: false,
    handle: async (s, r) => ok(await s.failureCounts(parseInput('failureCounts', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/usage/flows',
    apiMethod: 'usageByFlow',
    body: false,
    handle: async (s, r) => ok(await s.usageByFlow(parseInput('usageByFlow', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/usage/split',
    apiMethod: 'costSplit',
    body: false,
    handle: async (s, r) => ok(await s.costSplit(parseInput('costSplit', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/flows/health',
    apiMethod: 'flowHealth',
    body: false,
    handle: async (s, r) => ok(await s.flowHealth(parseInput('flowHealth', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/errors/series',
    apiMethod: 'errorSeries',
    body: false,
    handle: async (s, r) => ok(await s.errorSeries(parseInput('errorSeries', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/errors/groups',
    apiMethod: 'errorGroups',
    body: false,
    handle: async (s, r) => ok(await s.errorGroups(parseInput('errorGroups', queryInput(r.query, { numbers: [...FILTER_NUMBERS, 'trendBins'] })))),
  },
  {
    method: 'GET',
    path: '/api/errors',
    apiMethod: 'listErrors',
    body: false,
    handle: async (s, r) => ok(await s.listErrors(parseInput('listErrors', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/issues',
    apiMethod: 'listIssues',
    body: false,
    handle: async (s, r) => ok(await s.listIssues(parseInput('listIssues', queryInput(r.query, { numbers: FILTER_NUMBERS })))),
  },
  {
    method: 'GET',
    path: '/api/issues/:id',
    apiMethod: 'getIssue',
    body: false,
    handle: async (s, r) => ok(await s.getIssue(parseInput('getIssue', { ...queryInput(r.query), id: r.params.id }))),
  },
  {
    method: 'GET',
    path: '/api/issues/:id/page',
    apiMethod: 'getIssueDetail',
    body: false,
    handle: async (s, r) => ok(await s.getIssueDetail(parseInput('getIssueDetail', { ...queryInput(r.query, { numbers: FILTER_NUMBERS }), id: r.params.id }))),
  },
  {
    method: 'POST',
    path: '/api/issues/:id/status',
    apiMethod: 'setIssueStatus',
    body: true,
    handle: async (s, r) => ok(await s.setIssueStatus(parseInput('setIssueStatus', { ...bodyObject(r.body), id: r.params.id }))),
  },
];

interface Compiled {
  route: Route;
  pattern: RegExp;
  keys: string[];
}

const COMPILED: Compiled[] = ROUTES.map((route) => {
  const keys: string[] = [];
  const source = route.path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
      keys.push(part.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), keys };
});

export type RouteMatch = { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };

/** Finds the route for a method and path; path parameters are URL-decoded. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const allow: string[] = [];
  for (const { route, pattern, keys } of COMPILED) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
      allow.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    try {
      keys.forEach((key, i) => (params[key] = decodeURIComponent(match[i + 1] as string)));
    } catch {
      throw new ApiError(400, 'invalid_input', 'malformed path');
    }
    return { kind: 'found', route, params };
  }
  return allow.length > 0 ? { kind: 'method', allow } : { kind: 'none' };
}
