import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../core/base/events.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../core/otel/receive/receiver.js';
import type { HivewatchStore } from '../../core/store/contract.js';
import { openStore } from '../../core/store/index.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../core/store/testing/test-databases.js';
import { skipTitle } from '../../core/testing/skip.js';
import { GENAI_CLIENT_PINS, GENAI_SCENARIOS, installedGenAiClient, runGenAiClient, type GenAiProtocol } from './genai-client.js';
import { CHAT_USAGE, startOpenAiChatStub } from '../stubs/openai-chat-stub.js';

/**
 * The GenAI-instrumented client as a real subprocess (agents-real/genai-client/agent.mjs: the
 * official `openai` SDK traced by @opentelemetry/instrumentation-openai) talking to the Chat
 * Completions stub and exporting OTLP/HTTP to a real Hivewatch receiver on a real SQLite
 * journal: its failed and successful model calls become an external run's attempts with the
 * one classifier's codes, and its session ends with its last call's status.
 */

const install = await installedGenAiClient();
const pins = `@opentelemetry/instrumentation-openai ${GENAI_CLIENT_PINS['@opentelemetry/instrumentation-openai']} + openai ${GENAI_CLIENT_PINS.openai}`;
const title = `${pins} exporting to a real receiver on $name`;

const QUIET_MS = 60_000;

/** Where the receiver journals: a SQLite file, or a fresh database of a throwaway PostgreSQL cluster. */
interface Engine {
  name: string;
  skip: string | null;
  open(name: string): Promise<HivewatchStore>;
  stop(): Promise<void>;
}

function sqliteEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'hw-genai-real-'));
  return {
    name: 'SQLite',
    skip: null,
    open: (name) => openStore({ path: join(dir, `${name}.db`) }),
    stop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

function postgresEngine(): Engine {
  const databases = new TestDatabases();
  return {
    name: 'PostgreSQL',
    skip: postgresBinaries ? null : postgresMissing,
    async open(name) {
      await databases.start();
      const url = await databases.fresh(name);
      await databases.endPools();
      return openStore({ path: url });
    },
    stop: () => databases.stop(),
  };
}

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(engine: Engine, name: string): Promise<{ store: HivewatchStore; receiver: OtlpReceiver; clock: { now: number } }> {
  const store = await engine.open(name);
  closers.push(() => store.close());
  const clock = { now: Date.now() };
  const receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, now: () => clock.now, quietMs: QUIET_MS });
  closers.push(() => receiver.close());
  return { store, receiver, clock };
}

/** Runs the client once against a stub scripted for `scenario`; returns the run its conversation became. */
async function runScenario(env: Awaited<ReturnType<typeof setup>>, scenario: string, conversationId: string, protocol: GenAiProtocol = 'http/json') {
  if (!install.ok) throw new Error(install.reason);
  const stub = await startOpenAiChatStub(GENAI_SCENARIOS[scenario] ?? []);
  closers.push(() => stub.close());
  const result = await runGenAiClient({
    modules: install.dir,
    providerUrl: stub.url,
    otlpEndpoint: env.receiver.endpoint,
    token: env.receiver.token,
    conversationId,
    protocol,
  });
  const runs = async () => (await env.store.listRuns({ limit: 20 })).runs.filter((r) => r.flow === 'external:weather-agent');
  // The receiver answers the export before its queue writes it: wait until the run has its agent's verdict.
  await vi.waitFor(
    async () => {
      const events = await Promise.all((await runs()).map((r) => env.store.getEvents(r.id)));
      const ended = events.flat().filter((e) => e.type === 'externalEvent' && e.name === 'invoke_agent weather');
      expect(ended.length, `the ${scenario} run's invoke_agent span (client: exit ${String(result.exitCode)}, ${result.stderr})`).toBeGreaterThan(0);
    },
    { timeout: 30_000 },
  );
  const run = (await runs()).find((r) => r.flowName.includes(conversationId.slice(0, 8)));
  if (!run) throw new Error(`no external run for ${conversationId}`);
  return { result, stub, runId: run.id };
}

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);

describe.each([
  { name: 'SQLite', make: sqliteEngine },
  { name: 'PostgreSQL', make: postgresEngine },
])(title, ({ make }) => {
  const engine = make();
  const skip = install.ok ? engine.skip : `the GenAI client's packages could not be installed (${install.reason})`;
  afterAll(() => engine.stop());

  it.skipIf(skip !== null)(
    skipTitle(
      `${engine.name}: 429 then success: a failed RUNTIME_RATE_LIMIT attempt, a succeeded one with its tokens; the session completes when it goes quiet`,
      skip,
    ),
    async () => {
      const env = await setup(engine, 'genai_rl');
      const { result, stub, runId } = await runScenario(env, 'rate-limit-then-ok', 'conv-rl-then-ok');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(stub.requests.map((r) => r.answer)).toEqual(['error 429', 'text']);
      const detail = (await env.store.getRun(runId))!;
      expect(detail.attempts.map((a) => [a.attempt, a.status, a.errorCode])).toEqual([
        [1, 'failed', 'RUNTIME_RATE_LIMIT'],
        [2, 'succeeded', null],
      ]);
      const events = await env.store.getEvents(runId);
      expect(ofType(events, 'attemptSucceeded')[0]?.usage).toEqual({
        inputTokens: CHAT_USAGE.prompt_tokens,
        outputTokens: CHAT_USAGE.completion_tokens,
        source: 'telemetry',
      });
      env.clock.now += QUIET_MS + 1;
      await env.receiver.ingester.sweep();
      expect((await env.store.getRun(runId))!.run.status).toBe('completed');
    },
  );

  it.skipIf(skip !== null)(
    skipTitle(`${engine.name}: 401, exported as protobuf: one failed attempt, USER_INVALID_CONFIG, and the session ends failed with it`, skip),
    async () => {
      const env = await setup(engine, 'genai_401');
      const { result, runId } = await runScenario(env, 'unauthorized', 'conv-unauthorized', 'http/protobuf');
      expect(result.exitCode).toBe(1);
      const detail = (await env.store.getRun(runId))!;
      expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'USER_INVALID_CONFIG']]);
      env.clock.now += QUIET_MS + 1;
      await env.receiver.ingester.sweep();
      expect((await env.store.getRun(runId))!.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    },
  );
});
