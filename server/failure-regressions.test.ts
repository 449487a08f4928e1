import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { failFast, rethrow, retryLimit } from '../core/store/testing/failure-journals.js';
import { startHttpShell, type HttpShell } from './http.js';

/**
 * The failure model's defects as an operator met them, through the HTTP API on a history of old-shape
 * journals (as the engine wrote them before the failure model). Written with the calls that
 * existed before the failure model, so each fails on the code before it (d2ab4e2).
 * - `GET /api/runs?status=failed&code=RUNTIME_CRASHED` missed a fail-fast run whose branch B
 *   crashed while A retried timeouts: the filter read the run's last error (a timeout).
 * - A rethrown error that failed its run stayed "handled" (it had been caught).
 */

let dir: string;
let store: HivewatchStore;
let service: HivewatchService;
let shell: HttpShell;

async function get<T>(path: string): Promise<T> {
  const response = await fetch(`${shell.origin}${path}`, { headers: { Authorization: `Bearer ${shell.token}` } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-failure-regressions-'));
  store = await openStore({ path: join(dir, 'hivewatch.db') });
  for (const scenario of [failFast('fast', 'legacy'), rethrow('rethrown', 'legacy'), retryLimit('limit', 'legacy')]) await store.appendEvents(scenario.events);
  service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR });
  shell = await startHttpShell({ service, staticDir: null });
}, 60_000);

afterAll(async () => {
  await shell?.close();
  await service?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('failure-model regressions over HTTP', () => {
  it('GET /api/runs?status=failed&code=RUNTIME_CRASHED finds the fail-fast run whose newest error is a retried timeout', async () => {
    const crashed = await get<{ items: { id: string; lastError: { code: string } | null }[] }>('/api/runs?status=failed&code=RUNTIME_CRASHED');
    expect(crashed.items.map((r) => r.id).sort()).toEqual(['fast', 'rethrown']);
    expect(crashed.items.find((r) => r.id === 'fast')?.lastError?.code).toBe('RUNTIME_TIMEOUT');
    const timeouts = await get<{ items: { id: string }[] }>('/api/runs?status=failed&code=RUNTIME_TIMEOUT');
    // The retry-limit run gave up after timeouts (its root cause); the fail-fast run did not end with one.
    expect(timeouts.items.map((r) => r.id)).toEqual(['limit']);
    expect((await get<{ total: number }>('/api/runs/counts?status=failed&code=RUNTIME_CRASHED')).total).toBe(2);
  });

  it('a rethrown error that failed its run is unhandled; the fail-fast sibling stopped mid-attempt is not', async () => {
    const byHandled = await get<{ key: string; count: number }[]>('/api/errors/counts?by=handled&runId=rethrown');
    expect(byHandled).toEqual([{ key: 'unhandled', count: 1, label: null }]);
    const groups = await get<{ code: string; count: number; unhandled: number }[]>('/api/errors/groups?runId=fast');
    // B's crash ended the run; C's crash (killed when B failed) and A's retried timeouts did not.
    expect(groups.map((g) => [g.code, g.count, g.unhandled]).sort()).toEqual(
      [
        ['RUNTIME_CRASHED', 1, 0],
        ['RUNTIME_CRASHED', 1, 1],
        ['RUNTIME_TIMEOUT', 2, 0],
      ].sort(),
    );
  });
});
