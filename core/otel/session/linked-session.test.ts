import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { decodeOtlp, type TelemetryRecord } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';
import { fixture } from '../testing.js';

/**
 * A session sent from inside a Hivewatch attempt (its `hivewatch.*` resource
 * attributes) is part of that attempt. Its failed requests are the attempt's failed calls, shown
 * in it; the attempt's own result is the one failure, so the session adds no error occurrence
 * and no failed run. The same records without the link are an ordinary external session that
 * ends failed (the control).
 */

let dir: string;
let store: HivewatchStore;
let now: number;
const T0 = 1763900000000;
const QUIET_MS = 60_000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-linked-'));
  store = await openStore({ path: join(dir, 'hw.db') });
  now = T0 + 200_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingester = (): OtelIngester => new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
const logs = (): TelemetryRecord[] => decodeOtlp('logs', 'json', fixture('claude-code-logs', 'json'));
const linked = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({ ...r, resource: { ...r.resource, 'hivewatch.run_id': 'run-42', 'hivewatch.task_id': 'fix', 'hivewatch.attempt': '2' } }));
const codes = async (): Promise<Record<string, number>> => Object.fromEntries((await store.errorCounts({ by: 'code' })).map((c) => [c.key, c.count]));

async function ingestAndGoQuiet(records: TelemetryRecord[]): Promise<string> {
  const i = ingester();
  const { runIds } = await i.ingest(records, 'payload-1');
  now += QUIET_MS + 1;
  await i.sweep();
  return runIds[0]!;
}

describe('a session linked to a Hivewatch attempt adds no failure of its own', () => {
  it("control: unlinked, its last prompt's 401 fails the session, and every API error is an occurrence", async () => {
    const runId = await ingestAndGoQuiet(logs());
    expect((await store.getRunRow(runId))!.status).toBe('failed');
    expect(await codes()).toEqual({ RUNTIME_RATE_LIMIT: 1, RUNTIME_PROVIDER_ERROR: 1, RUNTIME_TIMEOUT: 1, USER_INVALID_CONFIG: 1, AGENT_TOOL_FAILED: 1 });
    expect((await store.failureCounts({ by: 'code' })).total).toBe(1);
  });

  it('linked: the failed requests are failed attempts with their codes, but no occurrences, and the session ends without a failure', async () => {
    const runId = await ingestAndGoQuiet(linked(logs()));
    const detail = (await store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.taskId, a.attempt, a.status, a.errorCode])).toEqual([
      ['prompt-1-p-1', 1, 'failed', 'RUNTIME_RATE_LIMIT'],
      ['prompt-1-p-1', 2, 'failed', 'RUNTIME_PROVIDER_ERROR'],
      ['prompt-1-p-1', 3, 'succeeded', null],
      ['prompt-2-p-2', 1, 'failed', 'RUNTIME_TIMEOUT'],
      ['prompt-2-p-2', 2, 'failed', 'USER_INVALID_CONFIG'],
    ]);
    // Its last prompt still reads failed, with the failure that ended it; the session's run does not.
    expect(detail.tasks.map((t) => [t.taskId, t.status])).toEqual([
      ['prompt-1-p-1', 'succeeded'],
      ['prompt-2-p-2', 'failed'],
    ]);
    expect((await store.getRunRow(runId))!.status).toBe('completed');
    // The failed tool is reported by nothing else: it stays, once.
    expect(await codes()).toEqual({ AGENT_TOOL_FAILED: 1 });
    expect((await store.failureCounts({ by: 'code' })).total).toBe(0);
    expect(await store.attemptTelemetry('run-42')).toEqual([
      { taskId: 'fix', attempt: 2, runId, sessionId: '7f3c9a2e-1b4d-4e8a-9c6f-2d5e8b1a0c33', origin: 'runtime:claude-code' },
    ]);
  });
});
