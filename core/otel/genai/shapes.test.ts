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
 * The GenAI mapping on span shapes the recorded client does not send (docs/otel.md "OpenTelemetry
 * GenAI agents"): the older attribute names, an `error.type` that is a status, a span that is not
 * well-formed, spans without a conversation, and Claude Code's own gen_ai.* spans (never read as
 * GenAI: its logs are mapped).
 */

const T0 = Date.UTC(2026, 10, 26, 6, 0, 0);
let dir: string;
let store: HivewatchStore;
let ingester: OtelIngester;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-genai-shapes-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
  ingester = new OtelIngester(store, { now: () => T0 + 60_000 });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ingest(service: string, spans: SpanSpec[]) {
  return ingester.ingest(decodeOtlp('traces', 'json', spanPayload(service, spans, T0)), null);
}

async function eventsOfOnlyRun(): Promise<HivewatchEvent[]> {
  const runs = (await store.listRuns({ limit: 10 })).runs;
  expect(runs).toHaveLength(1);
  return store.getEvents(runs[0]!.id);
}

const ofType = <T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] =>
  events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);

describe('GenAI span shapes', () => {
  it('older names (gen_ai.system, prompt/completion tokens), an error.type that is a status, and the chat-like operations are attempts', async () => {
    await ingest('my-app', [
      { name: 'embeddings e5', attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.system': 'openai', 'gen_ai.usage.prompt_tokens': 40 } },
      { name: 'text_completion m', attributes: { 'gen_ai.operation.name': 'text_completion', 'error.type': '429' }, status: { code: 2 } },
      {
        name: 'generate_content m',
        attributes: { 'gen_ai.operation.name': 'generate_content', 'http.response.status_code': 503, 'error.type': 'ServiceUnavailable' },
        status: { code: 2, message: 'upstream down' },
      },
      {
        name: 'chat m',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.usage.input_tokens': 20,
          'gen_ai.usage.completion_tokens': 3,
          'gen_ai.usage.cache_read.input_tokens': 8,
        },
      },
    ]);
    const events = await eventsOfOnlyRun();
    expect(ofType(events, 'runStarted')[0]?.external).toMatchObject({ origin: 'runtime:my-app', sessionId: `trace-${'a'.repeat(32)}` });
    expect(ofType(events, 'taskStarted').map((t) => t.name)).toEqual(['trace aaaaaaaa']);
    expect(ofType(events, 'attemptFailed').map((e) => [e.attempt, e.error.code, e.error.context?.statusCode])).toEqual([
      [2, 'RUNTIME_RATE_LIMIT', 429],
      [3, 'RUNTIME_PROVIDER_ERROR', 503],
    ]);
    expect(ofType(events, 'attemptSucceeded').map((e) => [e.attempt, e.usage])).toEqual([
      [1, { inputTokens: 40, source: 'telemetry' }],
      // The conventions count the 8 cached tokens inside the 20 input tokens; Hivewatch's inputTokens is the rest.
      [4, { inputTokens: 12, outputTokens: 3, cacheReadTokens: 8, source: 'telemetry' }],
    ]);
  });

  it('a span that is not well-formed is kept as an unknown event with the reason, and ingest goes on', async () => {
    await ingest('my-app', [
      { name: 'chat no-end', attributes: { 'gen_ai.operation.name': 'chat' }, endMs: null },
      { name: 'provider only', attributes: { 'gen_ai.provider.name': 'openai' } },
      { name: 'dance', attributes: { 'gen_ai.operation.name': 'dance' } },
      { name: 'backwards', attributes: { 'gen_ai.operation.name': 'execute_tool' }, startMs: T0 + 500, endMs: T0 + 100 },
      { name: 'chat ok', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': -5 }, startMs: T0 + 600, endMs: T0 + 700 },
    ]);
    const events = await eventsOfOnlyRun();
    const unknown = ofType(events, 'externalEvent').filter((e) => !e.known);
    expect(Object.fromEntries(unknown.map((e) => [e.name, e.attributes['hivewatch.reason']]))).toEqual({
      'chat no-end': 'the span has no start or end time: its duration is unknown',
      backwards: 'the span ends before it starts',
      'provider only':
        'the span names a GenAI provider or system but no operation (no gen_ai.operation.name, ai.operationId, "{operation} {model}" span name or llm.request.type)',
      dance:
        'gen_ai.operation.name "dance" is none Hivewatch reads (chat, text_completion, generate_content, embeddings, execute_tool, invoke_agent, create_agent, invoke_workflow)',
    });
    // The negative token count is not taken, and is said so.
    const adjusted = ofType(events, 'externalEvent').find((e) => e.name === 'hivewatch.telemetry_adjusted');
    expect(adjusted?.attributes.adjustments).toEqual([expect.objectContaining({ field: 'attributes.gen_ai.usage.input_tokens', used: null })]);
    expect(ofType(events, 'attemptSucceeded').map((e) => e.usage)).toEqual([undefined]);
  });

  it('hostile values: a status of the wrong shape reads as unset (the payload is taken), a huge agent name is cut in the task id and name', async () => {
    const name = 'n'.repeat(5000);
    const raw = JSON.parse(
      spanPayload('my-app', [{ name: 'invoke_agent x', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name } }], T0).toString(),
    ) as {
      resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
    };
    raw.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.status = { code: 'weird', message: 42 };
    await ingester.ingest(decodeOtlp('traces', 'json', Buffer.from(JSON.stringify(raw))), null);
    const events = await eventsOfOnlyRun();
    const [task] = ofType(events, 'taskStarted');
    expect(task!.taskId.length).toBeLessThan(400);
    expect(task!.name.length).toBeLessThanOrEqual(201);
    expect(ofType(events, 'errorOccurred')).toEqual([]);
  });

  it("a chat span without a conversation joins its trace's invoke_agent conversation; another trace without one is a run of its own", async () => {
    const agent = 'b'.repeat(16);
    await ingest('my-app', [
      { name: 'chat m', attributes: { 'gen_ai.operation.name': 'chat' }, spanId: 'c'.repeat(16), parentSpanId: agent },
      {
        name: 'invoke_agent planner',
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner', 'gen_ai.conversation.id': 'conv-7' },
        spanId: agent,
        startMs: T0 - 10,
        endMs: T0 + 60,
      },
      { name: 'chat other', attributes: { 'gen_ai.operation.name': 'chat' }, traceId: 'd'.repeat(32) },
    ]);
    const runs = (await store.listRuns({ limit: 10 })).runs;
    const sessions = await Promise.all(runs.map(async (r) => ofType(await store.getEvents(r.id), 'runStarted')[0]?.external?.sessionId));
    expect([...sessions].sort()).toEqual(['conv-7', `trace-${'d'.repeat(32)}`]);
    const conv = runs[sessions.indexOf('conv-7')]!;
    const events = await store.getEvents(conv.id);
    expect(ofType(events, 'taskStarted').map((t) => [t.name, t.taskId])).toEqual([['agent planner', `prompt-1-agent-${agent}`]]);
    expect(ofType(events, 'attemptSucceeded')).toHaveLength(1);
  });

  it('a failed tool is a failed attempt the agent handles (AGENT_TOOL_FAILED, caught); an agent that fails after calls that went well fails its task with its own classified error', async () => {
    const agentA = 'e'.repeat(16);
    const agentB = 'f'.repeat(16);
    await ingest('my-app', [
      {
        name: 'execute_tool search',
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'error.type': 'TimeoutError' },
        status: { code: 2, message: 'no answer in 5 s' },
        parentSpanId: agentA,
      },
      { name: 'chat m', attributes: { 'gen_ai.operation.name': 'chat' }, parentSpanId: agentA },
      { name: 'invoke_agent a', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' }, spanId: agentA, startMs: T0 - 10 },
      { name: 'chat n', attributes: { 'gen_ai.operation.name': 'chat' }, parentSpanId: agentB, startMs: T0 + 1000, endMs: T0 + 1100 },
      {
        name: 'invoke_agent b',
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'b' },
        spanId: agentB,
        startMs: T0 + 900,
        endMs: T0 + 1200,
        status: { code: 2, message: 'plan exceeded 10 steps' },
      },
    ]);
    const quiet = new OtelIngester(store, { now: () => T0 + 60 * 60_000, quietMs: 60_000 });
    await quiet.sweep();
    const events = await eventsOfOnlyRun();
    expect(ofType(events, 'attemptFailed').map((e) => [e.taskId, e.error.code, e.error.message])).toEqual([
      ['prompt-1-agent-' + agentA, 'AGENT_TOOL_FAILED', 'my-app: tool search failed: TimeoutError: no answer in 5 s'],
    ]);
    expect(ofType(events, 'errorOccurred').map((e) => [e.error.code, e.caught])).toEqual([
      ['AGENT_TOOL_FAILED', true],
      ['RUNTIME_UNKNOWN', false],
    ]);
    const runs = (await store.listRuns({ limit: 10 })).runs;
    const detail = (await store.getRun(runs[0]!.id))!;
    expect(detail.tasks.map((t) => [t.name, t.status])).toEqual([
      ['agent a', 'succeeded'],
      ['agent b', 'failed'],
    ]);
    expect(detail.run).toMatchObject({ status: 'failed', endingCode: 'RUNTIME_UNKNOWN' });
    expect(detail.run.endingMessage).toContain('plan exceeded 10 steps');
    expect(await store.replayRun(detail.run.id)).toMatchObject({ ok: true });
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });

  it("Claude Code's own spans carry gen_ai.* too: they are not read as GenAI (its logs are what is mapped), so nothing is counted twice", async () => {
    const result = await ingest('claude-code', [
      { name: 'claude_code.llm_request', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'anthropic', 'session.id': 's1' } },
    ]);
    expect(result.records).toBe(0);
    expect((await store.listRuns({ limit: 10 })).runs).toEqual([]);
  });
});
