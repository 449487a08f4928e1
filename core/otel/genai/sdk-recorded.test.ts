import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT } from '../../../agents-real/genai-sdks/apps.js';
import { readGenAiFixture } from '../../../agents-real/recording/genai-fixtures.js';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openSqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { decodeOtlp } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';

/**
 * The GenAI mapping against what GenAI SDKs sent as they export (agents-real/fixtures/genai-ai-sdk/:
 * the Vercel AI SDK 6 with `experimental_telemetry`; genai-traceloop/: the same app under Traceloop
 * OpenLLMetry 0.27's span processor, and the `openai` SDK under its instrumentation; run.json names
 * every package version). Each recording is ingested as it arrived, then the quiet period passes.
 */

const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-genai-sdk-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function replayed(family: string, scenario: string) {
  const fixture = readGenAiFixture(scenario, family);
  if (!fixture) throw new Error(`no recording ${family}/${scenario} (npm run record-genai-fixtures)`);
  let now = Date.parse(fixture.run.recordedAt) + 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
  for (const [i, body] of fixture.bodies.entries()) {
    const encoding = fixture.run.exports[i]?.contentType.includes('protobuf') ? 'protobuf' : 'json';
    await ingester.ingest(decodeOtlp('traces', encoding, body), `${family}/${scenario}#${i}`);
  }
  now += QUIET_MS + 1;
  await ingester.sweep();
  const runs = (await store.listRuns({ limit: 10 })).runs;
  expect(runs, 'one external run per trace').toHaveLength(1);
  const detail = (await store.getRun(runs[0]!.id))!;
  const events = await store.getEvents(detail.run.id);
  expect(await store.replayRun(detail.run.id)).toMatchObject({ ok: true });
  expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  // Whatever the SDK recorded of the prompt, the answer and the tools, none of it is journaled.
  const journal = JSON.stringify(events);
  for (const text of Object.values(CONTENT)) expect(journal, `${family}/${scenario} journals no content`).not.toContain(text);
  return { fixture, detail, events };
}

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);
const attempts = (events: readonly HivewatchEvent[]) =>
  [
    ...ofType(events, 'attemptSucceeded').map((e) => [e.attempt, 'succeeded', e.usage?.inputTokens ?? null, e.usage?.outputTokens ?? null] as const),
    ...ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, null, null] as const),
  ].sort((a, b) => a[0] - b[0]);

describe.each([
  { family: 'genai-ai-sdk', prefix: '', app: 'weather-app' },
  { family: 'genai-traceloop', prefix: 'ai-sdk-', app: 'weather-app-traceloop' },
])('the Vercel AI SDK as recorded ($family)', ({ family, prefix, app }) => {
  it('generateText answered: one run of the app, its doGenerate one attempt with its tokens, completed', async () => {
    const { detail, events } = await replayed(family, `${prefix}text`);
    expect(detail.run).toMatchObject({ status: 'completed', flow: `external:${app}` });
    expect(attempts(events)).toEqual([[1, 'succeeded', 12, 9]]);
    expect(ofType(events, 'errorOccurred')).toEqual([]);
  });

  it('401: one failed attempt, USER_INVALID_CONFIG, the generateText span adds no second error; the run ends failed', async () => {
    const { detail, events } = await replayed(family, `${prefix}unauthorized`);
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(attempts(events)).toEqual([[1, 'USER_INVALID_CONFIG', null, null]]);
    expect(ofType(events, 'errorOccurred').map((e) => e.error.message)).toEqual([
      `${app} is not signed in or its API key was refused: AI_APICallError: Incorrect API key provided: stub-***.`,
    ]);
  });

  it('a failing tool: get_time succeeds, get_weather fails (AGENT_TOOL_FAILED, caught), the model answers after it: completed', async () => {
    const { detail, events } = await replayed(family, `${prefix}tool-fails`);
    expect(detail.run.status).toBe('completed');
    expect(attempts(events)).toEqual([
      [1, 'succeeded', 12, 9],
      [2, 'succeeded', null, null],
      [3, 'succeeded', 12, 9],
      [4, 'AGENT_TOOL_FAILED', null, null],
      [5, 'succeeded', 12, 9],
    ]);
    expect(ofType(events, 'errorOccurred').map((e) => [e.error.message, e.caught])).toEqual([
      [`${app}: tool get_weather failed: Error: the weather service has no station for Lyon`, true],
    ]);
  });
});

describe('the AI SDK alone', () => {
  it('streamText: its doStream is the attempt, with its tokens', async () => {
    const { detail, events } = await replayed('genai-ai-sdk', 'stream');
    expect(detail.run.status).toBe('completed');
    expect(attempts(events)).toEqual([[1, 'succeeded', 12, 9]]);
  });

  it('429 then success (the SDK retried by itself): a RUNTIME_RATE_LIMIT attempt, then one with tokens; completed, the rate limit handled', async () => {
    const { fixture, detail, events } = await replayed('genai-ai-sdk', 'rate-limit-then-ok');
    expect(fixture.run.apiRequests.map((r) => r.answer)).toEqual(['error 429', 'text']);
    expect(detail.run.status).toBe('completed');
    expect(attempts(events)).toEqual([
      [1, 'RUNTIME_RATE_LIMIT', null, null],
      [2, 'succeeded', 12, 9],
    ]);
    expect((await store.listErrors({ limit: 10 })).errors.map((e) => [e.code, e.disposition])).toEqual([['RUNTIME_RATE_LIMIT', 'handled']]);
  });
});

describe('Traceloop over the openai SDK', () => {
  it('its "chat gpt-4o-mini" span is an attempt with its tokens; a refused call sent no span at all (nothing to map)', async () => {
    const { detail, events } = await replayed('genai-traceloop', 'openai-text');
    expect(detail.run.status).toBe('completed');
    expect(attempts(events)).toEqual([[1, 'succeeded', 17, 5]]);
    expect(readGenAiFixture('openai-unauthorized', 'genai-traceloop')?.run).toMatchObject({ exitCode: 1, exports: [] });
  });
});
