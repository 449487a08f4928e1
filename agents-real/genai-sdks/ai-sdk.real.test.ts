import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../core/base/events.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../core/otel/receive/receiver.js';
import type { HivewatchStore } from '../../core/store/contract.js';
import { openStore } from '../../core/store/index.js';
import { startOpenAiStub } from '../stubs/openai-stub.js';
import { APP_SCENARIOS, appPackages, CONTENT, runApp } from './apps.js';

/**
 * The journey of an app on the Vercel AI SDK (agents-real/genai-sdks/ai-sdk.mjs: `ai` with
 * `@ai-sdk/openai` and `experimental_telemetry`, the OpenTelemetry Node SDK, its OTLP/HTTP
 * exporter; the project's devDependencies) as a real subprocess, against the local Responses API
 * stub, exporting to Hivewatch's real OTLP receiver on a real SQLite journal with prompt storage
 * off (the default): every invocation is a run with its attempts, tokens and classified errors,
 * and none of the prompt, the system instructions, the answer or the tools' arguments and results
 * is stored.
 */

const QUIET_MS = 60_000;
const packages = appPackages('ai-sdk');
const dir = mkdtempSync(join(tmpdir(), 'hw-ai-sdk-real-'));
let store: HivewatchStore;
let receiver: OtlpReceiver;
const clock = { now: Date.now() };

beforeAll(async () => {
  store = await openStore({ path: join(dir, 'hw.db') });
  receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, now: () => clock.now, quietMs: QUIET_MS });
});
afterAll(async () => {
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);

/** Runs the app once; returns the one run its trace became, after the session went quiet. */
async function journey(scenario: string) {
  const known = new Set((await store.listRuns({ limit: 100 })).runs.map((r) => r.id));
  const stub = await startOpenAiStub(APP_SCENARIOS['ai-sdk'][scenario]?.steps ?? []);
  try {
    const result = await runApp({ app: 'ai-sdk', scenario, modules: '', providerUrl: stub.url, otlpEndpoint: receiver.endpoint, token: receiver.token });
    // The receiver answers an export before its queue writes it: wait for the run's generateText verdict.
    const run = await vi.waitFor(
      async () => {
        const fresh = (await store.listRuns({ limit: 100 })).runs.filter((r) => !known.has(r.id));
        expect(fresh, `one new run (app: exit ${String(result.exitCode)}, ${result.stderr})`).toHaveLength(1);
        const events = await store.getEvents(fresh[0]!.id);
        expect(events.some((e) => e.type === 'externalEvent' && /^ai\.(generate|stream)Text$/.test(e.name))).toBe(true);
        return fresh[0]!;
      },
      { timeout: 20_000, interval: 50 },
    );
    clock.now += QUIET_MS + 1;
    await receiver.ingester.sweep();
    const detail = (await store.getRun(run.id))!;
    const events = await store.getEvents(run.id);
    const errors = (await store.listErrors({ limit: 100 })).errors.filter((e) => e.runId === run.id);
    // Prompt storage is off: no content of any kind is in the journal or the errors.
    const stored = JSON.stringify({ events, errors, detail });
    for (const text of Object.values(CONTENT)) expect(stored, `${scenario}: ${text} is not stored`).not.toContain(text);
    return { result, stub, detail, events, errors };
  } finally {
    await stub.close();
  }
}

const attemptsOf = (events: readonly HivewatchEvent[]) =>
  [
    ...ofType(events, 'attemptSucceeded').map((e) => [e.attempt, 'succeeded', e.usage?.inputTokens ?? null, e.usage?.outputTokens ?? null] as const),
    ...ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, null, null] as const),
  ].sort((a, b) => a[0] - b[0]);

describe(`the Vercel AI SDK (ai ${packages.ai}, @ai-sdk/openai ${packages['@ai-sdk/openai']}, @opentelemetry/sdk-node ${packages['@opentelemetry/sdk-node']}) exporting to a real receiver`, () => {
  it('generateText answered: a completed run of the app, one attempt with its tokens, no error', async () => {
    const { result, detail, events } = await journey('text');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(CONTENT.answer);
    expect(detail.run).toMatchObject({ status: 'completed', flow: 'external:weather-app' });
    expect(attemptsOf(events)).toEqual([[1, 'succeeded', 12, 9]]);
    expect(ofType(events, 'errorOccurred')).toEqual([]);
  });

  it('streamText answered: its doStream is the attempt, with its tokens', async () => {
    const { detail, events } = await journey('stream');
    expect(detail.run.status).toBe('completed');
    expect(attemptsOf(events)).toEqual([[1, 'succeeded', 12, 9]]);
  });

  it('429 then success: the SDK retries by itself; a RUNTIME_RATE_LIMIT attempt, handled, then one with tokens', async () => {
    const { result, stub, detail, events, errors } = await journey('rate-limit-then-ok');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(stub.requests.map((r) => r.answer)).toEqual(['error 429', 'text']);
    expect(detail.run.status).toBe('completed');
    expect(attemptsOf(events)).toEqual([
      [1, 'RUNTIME_RATE_LIMIT', null, null],
      [2, 'succeeded', 12, 9],
    ]);
    expect(errors.map((e) => [e.code, e.disposition])).toEqual([['RUNTIME_RATE_LIMIT', 'handled']]);
  });

  it('401: one failed attempt, USER_INVALID_CONFIG, one error, and the run ends failed with it', async () => {
    const { result, detail, events, errors } = await journey('unauthorized');
    expect(result.exitCode).toBe(1);
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(attemptsOf(events)).toEqual([[1, 'USER_INVALID_CONFIG', null, null]]);
    expect(errors.map((e) => [e.code, e.disposition])).toEqual([['USER_INVALID_CONFIG', 'unhandled']]);
  });

  it('a failing tool: AGENT_TOOL_FAILED, caught; the model answers after it and the run completes', async () => {
    const { result, detail, events, errors } = await journey('tool-fails');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(detail.run.status).toBe('completed');
    expect(attemptsOf(events)).toEqual([
      [1, 'succeeded', 12, 9],
      [2, 'succeeded', null, null],
      [3, 'succeeded', 12, 9],
      [4, 'AGENT_TOOL_FAILED', null, null],
      [5, 'succeeded', 12, 9],
    ]);
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['AGENT_TOOL_FAILED', 'weather-app: tool get_weather failed: Error: the weather service has no station for Lyon'],
    ]);
  });
});
