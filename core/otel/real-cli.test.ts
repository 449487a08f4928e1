import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import { CLI_PINS, type CliName } from '../../agents-real/pins.js';
import { openSqliteStore } from '../store/index.js';
import { sqliteContractStore } from '../store/sqlite/async-store.js';
import type { HivewatchStore } from '../store/contract.js';
import { decodeOtlp, type OtlpEncoding, type TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';

/**
 * The ingest against what the real CLIs sent (agents-real/fixtures/, the pinned Claude Code and
 * Codex; docs/real-agents.md): each recorded export ingested in the order it arrived,
 * then the quiet period.
 */

const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-real-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The recordings carry the `hivewatch.*` resource attributes a preset passes (docs/real-agents.md);
 * replayed as a session `otel-env` pointed at Hivewatch unless `linked`, i.e. without them.
 */
function asSeen(records: TelemetryRecord[], linked: boolean): TelemetryRecord[] {
  if (linked) return records;
  return records.map((r) => ({ ...r, resource: Object.fromEntries(Object.entries(r.resource).filter(([k]) => !k.startsWith('hivewatch.'))) }));
}

async function replay(cli: CliName, id: string, linked = false): Promise<{ ingester: OtelIngester; unattached: number }> {
  const f = readFixture(cli, id);
  if (!f) throw new Error(`no recording ${cli}/${id}`);
  now = Date.parse(f.run.recordedAt) + 10 * 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
  let unattached = 0;
  for (const e of f.exports) {
    const records = asSeen(decodeOtlp(e.signal as 'logs' | 'traces', e.encoding as OtlpEncoding, e.payload), linked);
    unattached += (await ingester.ingest(records, `${id}#${e.seq}`)).unattached;
  }
  return { ingester, unattached };
}

async function endSessions(ingester: OtelIngester): Promise<void> {
  now += QUIET_MS + 1;
  await ingester.sweep();
}

async function onlyRun() {
  const runs = (await store.listRuns({ limit: 10 })).runs;
  expect(runs).toHaveLength(1);
  return (await store.getRun(runs[0]!.id))!;
}

describe(`Claude Code ${CLI_PINS['claude-code'].version} as recorded`, () => {
  it('a 429 that recovered: the retried try is a visible attempt, handled at once; the session completes', async () => {
    const { ingester } = await replay('claude-code', 'rate-limit-then-ok.json-out.otlp-json.default-retries');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run.status).toBe('completed');
    expect(detail.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect((await store.listErrors({ limit: 10 })).errors.map((e) => e.disposition)).toEqual(['handled']);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });

  it('retries exhausted: the tries are attempts, api_error is the one unhandled failure, retries_exhausted joins it, the session fails', async () => {
    const { ingester } = await replay('claude-code', 'rate-limit.json-out.otlp-json.retries-2');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'RUNTIME_RATE_LIMIT' });
    expect(detail.attempts.map((a) => [a.attempt, a.status, a.errorCode])).toEqual([
      [1, 'failed', 'RUNTIME_RATE_LIMIT'],
      [2, 'failed', 'RUNTIME_RATE_LIMIT'],
      [3, 'failed', 'RUNTIME_RATE_LIMIT'],
    ]);
    const errors = (await store.listErrors({ limit: 10 })).errors;
    expect(errors.filter((e) => e.disposition === 'unhandled')).toHaveLength(1);
    const events = await store.getEvents(detail.run.id);
    expect(events.filter((e) => e.type === 'externalEvent' && e.name === 'claude_code.api_retries_exhausted')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'errorOccurred' && e.retrying)).toHaveLength(2);
    expect(await store.replayRun(detail.run.id)).toMatchObject({ ok: true });
  });

  it('a 401 ends the session failed with the user error, never completed', async () => {
    const { ingester } = await replay('claude-code', 'unauthorized.json-out.otlp-json.retries-0');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(detail.tasks.map((t) => t.status)).toEqual(['failed']);
  });

  it("the same 401 sent from inside a preset attempt (hivewatch.* as recorded) is that attempt's: a failed call, no failure of its own", async () => {
    const { ingester } = await replay('claude-code', 'unauthorized.json-out.otlp-json.retries-0', true);
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run).toMatchObject({ status: 'completed', endingCode: null });
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'USER_INVALID_CONFIG']]);
    expect((await store.listErrors({ limit: 10 })).errors).toEqual([]);
    expect((await store.failureCounts({ by: 'code' })).total).toBe(0);
    // Codex passes the attribute values as given (percent-encoded); Claude Code decodes them: both link alike.
    expect(await store.attemptTelemetry('run 7/a')).toMatchObject([{ taskId: 'task-1', attempt: 2, runId: detail.run.id }]);
  });
});

describe(`Codex ${CLI_PINS['codex-cli'].version} as recorded`, () => {
  it('a stall sent from inside a preset attempt links to it by the undecoded run id', async () => {
    const { ingester } = await replay('codex-cli', 'stall.json-out.otlp-json.retries-0', true);
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(await store.attemptTelemetry('run 7/a')).toMatchObject([{ taskId: 'task-1', attempt: 2, runId: detail.run.id }]);
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'RUNTIME_TIMEOUT']]);
    expect((await store.listErrors({ limit: 10 })).errors).toEqual([]);
  });

  it('a stalled stream: one attempt per stream with one RUNTIME_TIMEOUT each, the repeat of its failure kept, not counted', async () => {
    const { ingester } = await replay('codex-cli', 'stall.json-out.otlp-json.retries-0');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'RUNTIME_TIMEOUT' });
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'RUNTIME_TIMEOUT']]);
    expect((await store.listErrors({ limit: 10 })).errors).toHaveLength(1);
  });

  it('a hang (the CLI exported nothing about its request): the request in flight ends as RUNTIME_TIMEOUT when the session goes quiet', async () => {
    const { ingester } = await replay('codex-cli', 'hang.json-out.otlp-json.default-retries');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'RUNTIME_TIMEOUT' });
    expect(detail.run.endingMessage).toContain('while a request was in flight');
  });

  it('the "flushing OTEL metrics" record names no conversation: it joins the one open session, never a run of its own', async () => {
    const { ingester, unattached } = await replay('codex-cli', 'text.json-out.otlp-json.default-retries.network-defaults');
    await endSessions(ingester);
    const detail = await onlyRun();
    expect(detail.run.flowName).not.toContain('unknown');
    expect(detail.run.status).toBe('completed');
    expect(detail.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect(unattached).toBe(0);
  });
});
