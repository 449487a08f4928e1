import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../agents-real/recording/fixtures-io.js';
import type { HivewatchEvent } from '../../base/events.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { decodeOtlp, type TelemetryRecord } from '../receive/decode.js';
import { LINKED_GRACE_MS, OtelIngester } from '../receive/ingest.js';
import { startOtlpReceiver } from '../receive/receiver.js';
import { fixture } from '../testing.js';

/**
 * A session sent from inside a preset's attempt ends with that attempt (docs/otel.md "Sessions
 * linked to an attempt"): not after the quiet period, and not never when the receiver stops
 * first. When its CLI exited before exporting the request that failed (Codex exits 1 without
 * flushing), the session keeps the preset's own reading of that request — one call, the
 * attempt's code, marked as read from the CLI's output — never "0 API calls" nor a stalled
 * request of its own making.
 */

const QUIET_MS = 2 * 60_000;
const T0 = Date.UTC(2026, 10, 26, 10, 0, 0);
const PARENT = { runId: 'run-42', taskId: 'fix', attempt: 2 };

const tempDir = tempDirs();
let store: HivewatchStore;
let now = T0;
beforeEach(async () => {
  store = await openStore({ path: join(tempDir('hw-linked-end-'), 'hw.db') });
  now = T0;
});
afterEach(async () => {
  await store.close();
});

const link = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({
    ...r,
    resource: { ...r.resource, 'hivewatch.run_id': PARENT.runId, 'hivewatch.task_id': PARENT.taskId, 'hivewatch.attempt': String(PARENT.attempt) },
  }));

/** Claude Code's recorded logs (two prompts, the last one answered by a 401): a session whose last request is not in flight. */
const claudeLogs = (): TelemetryRecord[] => link(decodeOtlp('logs', 'json', fixture('claude-code-logs', 'json')));

/** What Codex 0.171.0 exported of a 429 turn before its first api_request record: the prompt, no request. */
function codexBeforeItsRequest(): TelemetryRecord[] {
  const f = readFixture('codex-cli', 'rate-limit.json-out.otlp-json.default-retries')!;
  const records = f.exports.filter((e) => e.signal === 'logs').flatMap((e) => decodeOtlp('logs', 'json', e.payload));
  const first = records.findIndex((r) => r.attributes['event.name'] === 'codex.api_request');
  return link(records.slice(0, first));
}

const RATE_LIMITED: ErrorEnvelope = new HivewatchError('RUNTIME_RATE_LIMIT', {
  origin: 'runtime:codex-cli',
  message: 'codex-cli: the API is rate limited or overloaded (HTTP 429): exceeded retry limit, last status: 429 Too Many Requests',
  context: { statusCode: 429, exitCode: 1 },
}).toEnvelope();

/** The flow run whose attempt 2 of task `fix` the session was sent from; `end` journals that attempt's end, `cancel` the run's cancel. */
async function parentRun(): Promise<{ end: (error: ErrorEnvelope | null) => Promise<void>; cancel: () => Promise<void> }> {
  const b = new JournalBuilder(PARENT.runId, { start: T0 - 60_000 });
  b.start();
  b.push({ type: 'stepStarted', step: 1, frontier: [] });
  b.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: PARENT.taskId, name: 'fix', agent: 'coder', maxAttempts: 3 });
  b.push({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: PARENT.taskId, attempt: 2 });
  await store.appendEvents(b.events);
  const from = b.events.length;
  return {
    end: async (error) => {
      const ref = { step: 1, ordinal: 0, taskId: PARENT.taskId, attempt: 2, durationMs: 900 };
      b.push(error ? { type: 'attemptFailed', ...ref, error } : { type: 'attemptSucceeded', ...ref });
      await store.appendEvents(b.events.slice(from));
    },
    cancel: async () => {
      b.push({ type: 'runCancelled', cause: { commandId: 'cmd-1', reason: 'operator' }, correlation: { run: PARENT.runId, step: 1, epoch: 1 } });
      await store.appendEvents(b.events.slice(from));
    },
  };
}

const idleOf = async (runId: string): Promise<Extract<HivewatchEvent, { type: 'externalRunIdle' }> | undefined> =>
  (await store.getEvents(runId)).find((e): e is Extract<HivewatchEvent, { type: 'externalRunIdle' }> => e.type === 'externalRunIdle');

describe('a session linked to a preset attempt ends with it', () => {
  it('ends a few seconds after its attempt ended, not after the quiet period; running while the attempt runs', async () => {
    const parent = await parentRun();
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const runId = (await ingester.ingest(claudeLogs(), null)).runIds[0]!;
    now += LINKED_GRACE_MS + 1;
    expect(await ingester.sweep()).toEqual([]);
    expect((await store.getRunRow(runId))!.status).toBe('running');

    await parent.end(null);
    expect(await ingester.sweep()).toEqual([runId]);
    expect((await store.getRunRow(runId))!.status).toBe('completed');
    expect(await idleOf(runId)).toMatchObject({ endedWith: PARENT, ts: now });
    expect(now - T0).toBeLessThan(QUIET_MS);
  });

  it('its last telemetry still in transit: it waits LINKED_GRACE_MS after that, then ends', async () => {
    const parent = await parentRun();
    await parent.end(null);
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const runId = (await ingester.ingest(claudeLogs(), null)).runIds[0]!;
    now += LINKED_GRACE_MS - 1;
    expect(await ingester.sweep()).toEqual([]);
    now += 2;
    expect(await ingester.sweep()).toEqual([runId]);
  });

  it('the receiver stopping ends it at once', async () => {
    const parent = await parentRun();
    // A timer that never fires within the test: only the start and the close sweep.
    const first = await startOtlpReceiver({ store, port: 0, token: 't', sweepEveryMs: 3_600_000, quietMs: QUIET_MS, now: () => now });
    const runId = (await first.ingester.ingest(claudeLogs(), null)).runIds[0]!;
    await parent.end(null);
    await first.close();
    expect((await store.getRunRow(runId))!.status).toBe('completed');
    expect(await idleOf(runId)).toMatchObject({ endedWith: PARENT });
  });

  it('stopped while its attempt still ran: it stays running, and the next receiver ends it when it starts', async () => {
    const parent = await parentRun();
    const first = await startOtlpReceiver({ store, port: 0, token: 't', sweepEveryMs: 3_600_000, quietMs: QUIET_MS, now: () => now });
    const runId = (await first.ingester.ingest(claudeLogs(), null)).runIds[0]!;
    await first.close();
    expect((await store.getRunRow(runId))!.status).toBe('running');
    await parent.end(null);
    now += LINKED_GRACE_MS + 1;
    const second = await startOtlpReceiver({ store, port: 0, token: 't', sweepEveryMs: 3_600_000, quietMs: QUIET_MS, now: () => now });
    try {
      await expect.poll(async () => (await store.getRunRow(runId))!.status, { timeout: 10_000 }).toBe('completed');
    } finally {
      await second.close();
    }
  });

  it("a failed Codex attempt whose request never reached the telemetry: the session keeps the preset's reading, one call with its code", async () => {
    const parent = await parentRun();
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const runId = (await ingester.ingest(codexBeforeItsRequest(), null)).runIds[0]!;
    await parent.end(RATE_LIMITED);
    now += LINKED_GRACE_MS + 1;
    await ingester.sweep();
    const detail = (await store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.attempt, a.status, a.errorCode])).toEqual([[1, 'failed', 'RUNTIME_RATE_LIMIT']]);
    expect(detail.attempts[0]!.error).toMatchObject({ context: { source: 'preset-output', statusCode: 429 } });
    expect(detail.attempts[0]!.error?.message).toMatch(/from the CLI's output as the preset read it: its telemetry of this request never arrived\)$/);
    // Linked: the attempt's own failure is the one counted; the session adds none and ends completed.
    expect(detail.run.status).toBe('completed');
    expect((await store.errorCounts({ by: 'code' })).filter((c) => c.key === 'RUNTIME_RATE_LIMIT')).toEqual([]);
  });

  it('its attempt cancelled with a request in flight: that request fails SYSTEM_CANCELLED, never succeeds', async () => {
    const parent = await parentRun();
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const runId = (await ingester.ingest(codexBeforeItsRequest(), null)).runIds[0]!;
    await parent.cancel();
    expect((await store.getRun(PARENT.runId))!.attempts.map((a) => a.status)).toEqual(['cancelled']);
    now += LINKED_GRACE_MS + 1;
    expect(await ingester.sweep()).toEqual([runId]);
    const detail = (await store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'SYSTEM_CANCELLED']]);
    expect(detail.attempts[0]!.error?.message).toBe('codex-cli: the attempt this session was sent from ended cancelled while this request was in flight');
  });

  it('a session that reported nothing but its start, of an attempt the provider refused: one call from the preset, in a task of its own', async () => {
    const parent = await parentRun();
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const startOnly = codexBeforeItsRequest().filter((r) => r.attributes['event.name'] !== 'codex.user_prompt');
    expect(startOnly.length).toBeGreaterThan(0);
    const runId = (await ingester.ingest(startOnly, null)).runIds[0]!;
    await parent.end(RATE_LIMITED);
    now += LINKED_GRACE_MS + 1;
    await ingester.sweep();
    const detail = (await store.getRun(runId))!;
    expect(detail.tasks.map((t) => [t.name, t.status])).toEqual([['prompt 1', 'failed']]);
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'RUNTIME_RATE_LIMIT']]);
  });
});
