import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { createHttpClient } from '../renderer/api/http-client.js';
import { BATCH_MOST } from '../renderer/api/read-batch.js';
import { MAX_BATCH_CALLS } from './batch.js';
import { startHttpShell, type HttpShell } from './http.js';

/** `POST /api/batch` (server/batch.ts) and the window's reads sent through it (renderer/api/read-batch.ts). */
describe('reads asked together travel as one batch', () => {
  let store: HivewatchStore;
  let service: HivewatchService;
  let shell: HttpShell;
  let runId: string;

  const send = async (method: string, path: string, body?: unknown, token = shell.token) => {
    const response = await fetch(`${shell.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  const batch = (calls: unknown) => send('POST', '/api/batch', { calls });

  beforeAll(async () => {
    store = await openStore({ path: ':memory:' });
    service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual' });
    shell = await startHttpShell({ service, staticDir: null, log: () => undefined });
    ({ runId } = await service.startRun({ flow: 'examples/03-flaky-tests.prose' }));
    await service.whenFinished(runId);
  });

  afterAll(async () => {
    await shell?.close();
    await service?.close();
    await store?.close();
  });

  it('answers each call as its own GET would, in order: value, 404 and 400 alike', async () => {
    const gets = [
      `/api/runs?limit=5`,
      `/api/runs/${runId}`,
      `/api/errors/counts?by=category`,
      `/api/database`,
      `/api/runs/run_nowhere`,
      `/api/errors/counts?by=colour`,
    ];
    const one = await Promise.all(gets.map((path) => send('GET', path)));
    const together = await batch([
      { method: 'listRuns', input: { limit: 5 } },
      { method: 'getRun', input: { runId } },
      { method: 'errorCounts', input: { by: 'category' } },
      { method: 'databaseStatus' },
      { method: 'getRun', input: { runId: 'run_nowhere' } },
      { method: 'errorCounts', input: { by: 'colour' } },
    ]);
    expect(together.status).toBe(200);
    const results = (together.json as { results: { status: number; body: unknown }[] }).results;
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 404, 400]);
    expect(results.map((r) => r.status)).toEqual(one.map((r) => r.status));
    // The database's status carries the moment it was asked: every other answer is the GET's own.
    expect(results.filter((_, i) => i !== 3).map((r) => r.body)).toEqual(one.filter((_, i) => i !== 3).map((r) => r.json));
    expect(Object.keys(results[3]?.body as object).sort()).toEqual(Object.keys(one[3]?.json as object).sort());
  });

  it('never runs a command, and refuses what is not a method, without failing the calls beside it', async () => {
    const before = (await service.listRuns({ limit: 100 })).items.length;
    const answer = await batch([
      { method: 'startRun', input: { flow: 'examples/01-happy-path.prose' } },
      { method: 'toString' },
      { method: 'listRuns', input: { limit: 1 } },
    ]);
    const results = (answer.json as { results: { status: number; body: unknown }[] }).results;
    expect(results.slice(0, 2)).toEqual([
      { status: 400, body: { error: { code: 'invalid_input', message: 'startRun: only reads can be batched' } } },
      { status: 400, body: { error: { code: 'invalid_input', message: 'toString: no such method' } } },
    ]);
    expect(results[2]?.status).toBe(200);
    expect((await service.listRuns({ limit: 100 })).items.length).toBe(before);
  });

  it('refuses a malformed batch as a whole with exact words; only POST, only with the token', async () => {
    const refused = (message: string) => ({ status: 400, json: { error: { code: 'invalid_input', message } } });
    expect(await send('POST', '/api/batch', {})).toEqual(refused('calls: must be a list of { method, input }'));
    expect(await batch([])).toEqual(refused(`calls: must hold 1 to ${MAX_BATCH_CALLS} calls, not 0`));
    expect(await batch(Array.from({ length: MAX_BATCH_CALLS + 1 }, () => ({ method: 'databaseStatus' })))).toEqual(
      refused(`calls: must hold 1 to ${MAX_BATCH_CALLS} calls, not ${MAX_BATCH_CALLS + 1}`),
    );
    expect(await batch([{ method: 'listRuns', input: [1] }])).toEqual(refused('calls[0].input: must be an object'));
    expect(await batch(['listRuns'])).toEqual(refused('calls[0]: must be { method, input }'));
    expect((await send('GET', '/api/batch')).status).toBe(405);
    expect((await send('POST', '/api/batch', { calls: [{ method: 'databaseStatus' }] }, 'not-the-token')).status).toBe(401);
  });

  it('the window’s client sends the reads of one turn as one batch, a lone read as its GET, and each call gets its own answer or error', async () => {
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    };
    const client = createHttpClient({ baseUrl: shell.origin, token: shell.token, fetch: recording });
    const [runs, run, missing, refused] = await Promise.allSettled([
      client.listRuns({ limit: 5 }),
      client.getRun({ runId }),
      client.getRun({ runId: 'run_nowhere' }),
      client.errorCounts({ by: 'colour' as 'category' }),
    ]);
    expect(sent).toEqual(['POST /api/batch']);
    expect(runs).toEqual({ status: 'fulfilled', value: await service.listRuns({ limit: 5 }) });
    expect(run.status === 'fulfilled' && run.value?.run.id).toBe(runId);
    // A missing run is null, as its GET's 404 reads; a refused input rejects that call alone.
    expect(missing).toEqual({ status: 'fulfilled', value: null });
    expect(refused).toMatchObject({ status: 'rejected', reason: { apiCode: 'invalid_input', status: 400 } });

    // More reads at once than one batch takes (the server's bound) are sent as several.
    sent.length = 0;
    const many = await Promise.all(Array.from({ length: BATCH_MOST + 8 }, () => client.getRun({ runId })));
    expect(BATCH_MOST).toBe(MAX_BATCH_CALLS);
    expect(sent).toEqual(['POST /api/batch', 'POST /api/batch']);
    expect(many.every((answer) => answer?.run.id === runId)).toBe(true);

    sent.length = 0;
    await client.listFlows();
    await client.startRun({ flow: 'examples/01-happy-path.prose' });
    expect(sent).toEqual(['GET /api/flows', 'POST /api/runs']);
    client.close();
  });
});
