import { API_METHODS, API_ROUTES, pathParams, type ApiMethod, type ApiRoute } from '../core/common/api-routes.js';
import { ApiError } from '../core/common/api-errors.js';
import type { HivewatchService } from '../core/service/service.js';
import { callApiMethod } from '../core/service/api-call.js';

/**
 * The JSON routes: one per API method, derived from the API's table (core/common/api-routes.ts).
 * GET inputs come from the query string (numbers converted, comma lists split); POST inputs from
 * the JSON body, with ids from the path. Every input is validated with the API's schemas here,
 * before the service (which validates again: the same schema, so the same message).
 */

interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export interface RouteResult {
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
    if (values.length > 1) throw new ApiError('invalid_input', `${key}: given more than once`);
    const value = values[0] as string;
    input[key] = spec.numbers?.includes(key) && NUMBER.test(value) ? Number(value) : value;
  }
  return input;
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_input', 'input must be an object');
  return body as Record<string, unknown>;
}

/** A null answer's 404, in the words the service uses for a missing thing (`no run run_x`). */
const NOT_FOUND_WORDS: Record<string, (input: Record<string, unknown>) => string> = {
  run_not_found: (input) => `no run ${String(input.runId)}`,
};

/** The route of one API method, as its table entry (core/common/api-routes.ts) says. */
function routeOf(apiMethod: ApiMethod): Route {
  const spec: ApiRoute = API_ROUTES[apiMethod];
  const fromPath = pathParams(spec.path);
  const body = spec.verb === 'POST';
  return {
    method: spec.verb,
    path: spec.path,
    apiMethod,
    body,
    async handle(service, request) {
      const params = Object.fromEntries(fromPath.map((key) => [key, request.params[key]]));
      const given = body ? bodyObject(request.body) : queryInput(request.query, spec);
      return answerCall(service, apiMethod, { ...given, ...params });
    },
  };
}

/**
 * One API method's answer to an input already gathered from the request (path, query or body,
 * or one call of a batch): validated with the API's schema, a null answer turned into its 404.
 */
export async function answerCall(service: HivewatchService, apiMethod: ApiMethod, given: Record<string, unknown>): Promise<RouteResult> {
  const spec: ApiRoute = API_ROUTES[apiMethod];
  const called = await callApiMethod(service, apiMethod, given);
  const input = called.input as Record<string, unknown>;
  const { value } = called;
  if (value === null && spec.nullAs !== undefined) {
    throw new ApiError(spec.nullAs, NOT_FOUND_WORDS[spec.nullAs]?.(input) ?? `${apiMethod}: not found`);
  }
  return { status: spec.created ? 201 : 200, body: value };
}

export const ROUTES: readonly Route[] = API_METHODS.map(routeOf);

interface Compiled {
  route: Route;
  pattern: RegExp;
  keys: string[];
}

/** A path with fewer `:name` segments is tried first: `/api/runs/counts` before `/api/runs/:runId`. */
const byFewerParams = (a: Route, b: Route): number => pathParams(a.path).length - pathParams(b.path).length;

const COMPILED: Compiled[] = [...ROUTES].sort(byFewerParams).map((route) => {
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
      throw new ApiError('invalid_input', 'malformed path');
    }
    return { kind: 'found', route, params };
  }
  return allow.length > 0 ? { kind: 'method', allow: [...new Set(allow)].sort() } : { kind: 'none' };
}
