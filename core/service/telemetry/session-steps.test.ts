import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openSqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { readApi } from '../read-api.js';

/**
 * An external session's one step as the read API shows it: its tasks are the prompts that joined
 * it (it starts with none), and it ends when the session ends by going quiet, finished or
 * aborted as the session did; it runs again when the session reopens.
 */

const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;
let now = T0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-session-steps-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
  now = T0 + 10_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (prompt: string): [string, Record<string, string>] => [
  'api_request',
  { 'prompt.id': prompt, model: 'claude-opus-5-5', input_tokens: '100', output_tokens: '10', cost_usd: '0.5', duration_ms: '20' },
];
const failedRequest = (prompt: string): [string, Record<string, string>] => [
  'api_error',
  { 'prompt.id': prompt, model: 'claude-opus-5-5', error: 'Invalid API key', status_code: '401', duration_ms: '20', attempt: '1' },
];

async function stepOf(runId: string) {
  const detail = (await readApi(store, () => Promise.resolve(null)).getRun({ runId }))!;
  return { step: detail.steps[0], taskIds: detail.tasks.map((t) => t.taskId) };
}

describe('the step of an external session', () => {
  it('lists the prompts that joined it, ends finished with the session and runs again when it reopens', async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const [runId] = (await ingester.ingest(claudeCodeLogs([request('p1'), request('p2')], 'steps001', T0), 'a')).runIds as [string];

    const running = await stepOf(runId);
    expect(running.taskIds).toHaveLength(2);
    expect(running.step).toMatchObject({ step: 1, status: 'running', endedAt: null, taskIds: running.taskIds });

    now += QUIET_MS + 1;
    expect(await ingester.sweep()).toEqual([runId]);
    const ended = await stepOf(runId);
    const run = (await store.getRun(runId))!.run;
    expect(run.status).toBe('completed');
    expect(ended.step).toMatchObject({ status: 'finished', endedAt: run.endedAt, taskIds: running.taskIds });

    await ingester.ingest(claudeCodeLogs([request('p3')], 'steps001', now), 'b');
    const reopened = await stepOf(runId);
    expect(reopened.step).toMatchObject({ status: 'running', endedAt: null });
    expect(reopened.step!.taskIds).toEqual(reopened.taskIds);
    expect(reopened.taskIds).toHaveLength(3);
  });

  it('ends aborted with a session whose last prompt failed', async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const [runId] = (await ingester.ingest(claudeCodeLogs([request('p1'), failedRequest('p2')], 'steps002', T0), 'a')).runIds as [string];
    now += QUIET_MS + 1;
    expect(await ingester.sweep()).toEqual([runId]);
    expect((await store.getRun(runId))!.run.status).toBe('failed');
    const { step, taskIds } = await stepOf(runId);
    expect(step).toMatchObject({ status: 'aborted', taskIds });
    expect(taskIds).toHaveLength(2);
  });
});
