import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readGenAiFixture } from '../../../agents-real/recording/genai-fixtures.js';
import { CHAT_USAGE } from '../../../agents-real/stubs/openai-chat-stub.js';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openSqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { decodeOtlp } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';

/**
 * The GenAI mapping against what a real instrumented client sent (agents-real/fixtures/genai-openai/:
 * the official `openai` SDK traced by @opentelemetry/instrumentation-openai 0.22.0; run.json names
 * every package version): each recorded export ingested as it arrived, then the quiet period.
 */

const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-genai-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Ingests a recording, lets its session go quiet, and returns its one run with its events. */
async function replayed(scenario: string) {
  const fixture = readGenAiFixture(scenario);
  if (!fixture) throw new Error(`no recording genai-openai/${scenario} (npm run record-genai-fixtures)`);
  now = Date.parse(fixture.run.recordedAt) + 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
  const encoding = fixture.run.protocol === 'http/protobuf' ? 'protobuf' : 'json';
  for (const [i, body] of fixture.bodies.entries()) await ingester.ingest(decodeOtlp('traces', encoding, body), `${scenario}#${i}`);
  now += QUIET_MS + 1;
  await ingester.sweep();
  const runs = (await store.listRuns({ limit: 10 })).runs;
  expect(runs, 'one external run per conversation').toHaveLength(1);
  const detail = (await store.getRun(runs[0]!.id))!;
  const events = await store.getEvents(detail.run.id);
  expect(await store.replayRun(detail.run.id)).toMatchObject({ ok: true });
  expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  return { fixture, detail, events };
}

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);

describe('a GenAI-instrumented OpenAI client as recorded', () => {
  it('success: the conversation is one external run of the app, the invoke_agent span its task, the chat span an attempt with its tokens and span duration', async () => {
    const { detail, events } = await replayed('success');
    expect(detail.run).toMatchObject({ status: 'completed', flow: 'external:weather-agent' });
    const started = ofType(events, 'runStarted')[0];
    expect(started?.external).toMatchObject({ origin: 'runtime:weather-agent', sessionId: 'conv-success', source: 'weather-agent 1.0.0' });
    expect(detail.tasks.map((t) => [t.name, t.status])).toEqual([['agent weather', 'succeeded']]);
    const [done] = ofType(events, 'attemptSucceeded');
    expect(done?.usage).toEqual({ inputTokens: CHAT_USAGE.prompt_tokens, outputTokens: CHAT_USAGE.completion_tokens, source: 'telemetry' });
    const [start] = ofType(events, 'attemptStarted');
    expect(done!.durationMs).toBeGreaterThan(0);
    expect(done!.ts - start!.ts).toBe(done!.durationMs);
    expect(ofType(events, 'errorOccurred')).toEqual([]);
  });

  it('429 then success: the rate-limited call is a failed attempt coded RUNTIME_RATE_LIMIT by the one classifier, handled by the success after it', async () => {
    const { fixture, detail, events } = await replayed('rate-limit-then-ok');
    expect(fixture.run.apiRequests.map((r) => r.answer)).toEqual(['error 429', 'text']);
    expect(detail.run.status).toBe('completed');
    const attempts = ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, e.error.context?.statusCode]);
    expect(attempts).toEqual([[1, 'RUNTIME_RATE_LIMIT', 429]]);
    expect(ofType(events, 'attemptSucceeded').map((e) => e.attempt)).toEqual([2]);
    expect(ofType(events, 'errorOccurred')[0]?.error.message).toContain('RateLimitError');
    expect((await store.listErrors({ limit: 10 })).errors.map((e) => [e.code, e.disposition])).toEqual([['RUNTIME_RATE_LIMIT', 'handled']]);
  });

  it('the same over OTLP/HTTP protobuf (@opentelemetry/exporter-trace-otlp-proto): the same attempts, codes and tokens', async () => {
    const { fixture, events } = await replayed('rate-limit-then-ok.protobuf');
    expect(fixture.run.exports.map((e) => e.contentType)).toEqual(['application/x-protobuf']);
    expect(ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, e.error.context?.statusCode])).toEqual([[1, 'RUNTIME_RATE_LIMIT', 429]]);
    expect(ofType(events, 'attemptSucceeded').map((e) => [e.attempt, e.usage?.inputTokens])).toEqual([[2, CHAT_USAGE.prompt_tokens]]);
    expect(ofType(events, 'runStarted')[0]?.external?.sessionId).toBe('conv-rate-limit-then-ok');
  });

  it('401: the refused call is USER_INVALID_CONFIG; the agent span repeats it (no second error) and the session ends failed with it', async () => {
    const { fixture, detail, events } = await replayed('unauthorized');
    expect(fixture.run.exitCode).toBe(1);
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(detail.tasks.map((t) => t.status)).toEqual(['failed']);
    expect(ofType(events, 'attemptFailed').map((e) => [e.error.code, e.error.context?.statusCode])).toEqual([['USER_INVALID_CONFIG', 401]]);
    expect(ofType(events, 'errorOccurred')).toHaveLength(1);
    expect((await store.listErrors({ limit: 10 })).errors.map((e) => e.disposition)).toEqual(['unhandled']);
  });

  it('tool call: chat, execute_tool get_weather, chat — three attempts of the agent task in the order they ended, tokens on the model calls only', async () => {
    const { detail, events } = await replayed('tool');
    expect(detail.run.status).toBe('completed');
    expect(detail.tasks).toHaveLength(1);
    const succeeded = ofType(events, 'attemptSucceeded');
    expect(succeeded.map((e) => [e.attempt, e.usage?.inputTokens ?? null])).toEqual([
      [1, CHAT_USAGE.prompt_tokens],
      [2, null],
      [3, CHAT_USAGE.prompt_tokens],
    ]);
    expect(ofType(events, 'externalEvent').map((e) => [e.name, e.known])).toEqual([['invoke_agent weather', true]]);
  });
});
