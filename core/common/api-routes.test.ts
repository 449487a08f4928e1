import { describe, expect, it } from 'vitest';
import { schemas } from '../service/schemas.js';
import { API_METHODS, API_ROUTES, isApiMethod, pathParams, type ApiRoute } from './api-routes.js';

describe('the API table', () => {
  it('gives every method its own verb and path under /api/', () => {
    const seen = new Map<string, string>();
    for (const method of API_METHODS) {
      const { verb, path } = API_ROUTES[method];
      expect(path, method).toMatch(/^\/api\/[a-z/:A-Z-]+$/);
      expect(seen.get(`${verb} ${path}`), `${method} shares ${verb} ${path}`).toBeUndefined();
      seen.set(`${verb} ${path}`, method);
    }
  });

  it('takes every path segment from a field the method’s schema accepts, and reads numbers and lists only on GET', () => {
    for (const method of API_METHODS) {
      const spec: ApiRoute = API_ROUTES[method];
      const shape = (schemas[method] as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      for (const key of pathParams(spec.path)) expect(Object.keys(shape), `${method} :${key}`).toContain(key);
      for (const key of [...(spec.numbers ?? []), ...(spec.lists ?? [])]) {
        expect(spec.verb, `${method} ${key}`).toBe('GET');
        expect(Object.keys(shape), `${method} ${key}`).toContain(key);
      }
      if (spec.noInput) expect(Object.keys(shape), method).toEqual([]);
    }
  });

  it('knows a method by its own name only: never an inherited key or another type', () => {
    expect(isApiMethod('listRuns')).toBe(true);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'subscribe', 'listruns', '', 42, null, undefined]) {
      expect(isApiMethod(name), String(name)).toBe(false);
    }
  });

  it('reads the path segments in order', () => {
    expect(pathParams('/api/runs/:runId/tasks/:taskId/skip-backoff')).toEqual(['runId', 'taskId']);
    expect(pathParams('/api/runs')).toEqual([]);
  });
});
