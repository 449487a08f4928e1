import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openSqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { decodeOtlp } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';
import { spanPayload, type SpanSpec } from './testing.js';

/**
 * How a span's operation is read when it carries no `gen_ai.operation.name` (the AI SDK's
 * `ai.operationId`, a `{operation} {model}` span name, `<provider>.<operation>`, `llm.request.type`),
 * and what a verdict span's status means: only OK clears a failure under it (the OpenTelemetry trace
 * API, "Set Status": instrumentation leaves UNSET unless there is an error).
 */

const T0 = Date.UTC(2026, 10, 26, 6, 0, 0);
const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;
let now: number;
let ingester: OtelIngester;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-genai-ops-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
  now = T0 + 60_000;
  ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingest = (spans: SpanSpec[]) => ingester.ingest(decodeOtlp('traces', 'json', spanPayload('my-app', spans, T0)), null);

async function quietRuns() {
  now += QUIET_MS + 1;
  await ingester.sweep();
  const runs = (await store.listRuns({ limit: 10 })).runs;
  return Promise.all(runs.map(async (r) => ({ detail: (await store.getRun(r.id))!, events: await store.getEvents(r.id) })));
}

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);

const refused = (parentSpanId: string, conversation: string): SpanSpec => ({
  name: 'chat gpt-4o-mini',
  attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': conversation, 'error.type': '401' },
  status: { code: 2, message: 'Incorrect API key provided' },
  parentSpanId,
});
const agent = (spanId: string, conversation: string, status: SpanSpec['status']): SpanSpec => ({
  name: 'invoke_agent weather',
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather', 'gen_ai.conversation.id': conversation },
  spanId,
  startMs: T0 - 10,
  endMs: T0 + 500,
  ...(status ? { status } : {}),
});

describe('a verdict span only clears with status OK', () => {
  it('an invoke_agent left UNSET keeps the 401 it contains: the session ends failed with it; one set OK clears it', async () => {
    await ingest([
      refused('a'.repeat(16), 'c1'),
      agent('a'.repeat(16), 'c1', undefined),
      refused('b'.repeat(16), 'c2'),
      agent('b'.repeat(16), 'c2', { code: 1 }),
    ]);
    const runs = await quietRuns();
    const bySession = new Map(runs.map((r) => [ofType(r.events, 'runStarted')[0]?.external?.sessionId, r.detail]));
    expect(bySession.get('c1')?.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(bySession.get('c1')?.tasks.map((t) => t.status)).toEqual(['failed']);
    expect(bySession.get('c2')?.run.status).toBe('completed');
    expect(bySession.get('c2')?.tasks.map((t) => t.status)).toEqual(['succeeded']);
    // Each refusal is one error; neither agent span adds one.
    expect(runs.map((r) => ofType(r.events, 'errorOccurred').length)).toEqual([1, 1]);
  });
});

describe('the operation of a span that does not name it', () => {
  it('from a "{operation} {model}" name, a "<provider>.<operation>" name and llm.request.type: attempts with their tokens and errors', async () => {
    await ingest([
      { name: 'chat gpt-4o-mini', attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 17, 'gen_ai.usage.output_tokens': 5 } },
      { name: 'openai.chat', attributes: { 'gen_ai.system': 'openai', 'gen_ai.usage.prompt_tokens': 11, 'gen_ai.usage.completion_tokens': 3 } },
      { name: 'embed the docs', attributes: { 'gen_ai.system': 'openai', 'llm.request.type': 'embedding', 'gen_ai.usage.prompt_tokens': 7 } },
      {
        name: 'execute_tool get_weather',
        attributes: { 'gen_ai.system': 'openai', 'gen_ai.tool.name': 'get_weather' },
        status: { code: 2, message: 'no station' },
      },
      {
        name: 'chat gpt-4o-mini',
        attributes: { 'gen_ai.provider.name': 'openai' },
        status: { code: 2, message: "This model's maximum context length is 128000 tokens." },
        events: [{ name: 'exception', attributes: { 'exception.type': 'context_length_exceeded' } }],
      },
    ]);
    const runs = await quietRuns();
    expect(runs).toHaveLength(1);
    const { events } = runs[0]!;
    expect(ofType(events, 'attemptSucceeded').map((e) => [e.attempt, e.usage?.inputTokens, e.usage?.outputTokens])).toEqual([
      [1, 17, 5],
      [2, 11, 3],
      [3, 7, undefined],
    ]);
    expect(ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, e.error.message])).toEqual([
      [4, 'AGENT_TOOL_FAILED', 'my-app: tool get_weather failed: no station'],
      [
        5,
        'USER_INVALID_CONFIG',
        "my-app: the request is larger than the model's context window: context_length_exceeded: This model's maximum context length is 128000 tokens.",
      ],
    ]);
  });

  it("the AI SDK's spans in separate exports (Traceloop exports each span alone): its doGenerate is the attempt, its generateText the verdict of the same task, one error", async () => {
    const root = 'e'.repeat(16);
    const call = { 'ai.operationId': 'ai.generateText.doGenerate', 'gen_ai.system': 'openai.responses', 'gen_ai.request.model': 'gpt-4o-mini' };
    const failed = { code: 2, message: 'Incorrect API key provided: sk-***.' };
    const exception = [{ name: 'exception', attributes: { 'exception.type': 'AI_APICallError', 'exception.message': failed.message } }];
    await ingest([{ name: 'chat gpt-4o-mini', attributes: call, parentSpanId: root, status: failed, events: exception }]);
    now += 1_000;
    await ingest([
      {
        name: 'chat gpt-4o-mini',
        attributes: { 'ai.operationId': 'ai.generateText', 'gen_ai.provider.name': 'openai' },
        spanId: root,
        startMs: T0 - 10,
        endMs: T0 + 500,
        status: failed,
        events: exception,
      },
    ]);
    const runs = await quietRuns();
    expect(runs).toHaveLength(1);
    const { detail, events } = runs[0]!;
    expect(detail.tasks.map((t) => t.status)).toEqual(['failed']);
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG' });
    expect(ofType(events, 'attemptFailed').map((e) => [e.error.code, e.error.message])).toEqual([
      ['USER_INVALID_CONFIG', 'my-app is not signed in or its API key was refused: AI_APICallError: Incorrect API key provided: sk-***.'],
    ]);
    expect(ofType(events, 'errorOccurred')).toHaveLength(1);
  });
});
