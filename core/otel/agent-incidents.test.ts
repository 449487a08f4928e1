import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventOf, HivewatchEvent } from '../base/events.js';
import { openStore, type HivewatchStore } from '../store/index.js';
import type { TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';
import { claudeCodeLogs } from './testing.js';

/**
 * Claude Code's hook, compaction, refusal, internal-error and MCP-connection events, each sent as
 * an OTLP/JSON log record the way Claude Code 2.1.332 builds it (its emitter's attribute names,
 * every value a string; docs/otel.md "Hooks, compaction, refusals, internal errors, MCP servers"),
 * through the ingester into a real SQLite store.
 */

let dir: string;
let store: HivewatchStore;
let now: number;
const T0 = 1763900000000;
const QUIET_MS = 60_000;
const SESSION = '5d0c7e21-8a3b-4f6e-9d12-7c4b1e9a0f58';

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-incidents-'));
  store = await openStore({ path: join(dir, 'hw.db') });
  now = T0 + 100_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

type Sent = [event: string, attributes: Record<string, string>];

const claudeCode = (records: readonly Sent[], session = SESSION): TelemetryRecord[] => claudeCodeLogs(records, session, T0);

const prompt = (id: string): Sent => ['user_prompt', { 'prompt.id': id, prompt_length: '12' }];
const apiRequest = (id: string): Sent => [
  'api_request',
  { 'prompt.id': id, model: 'claude-sonnet-4-5', duration_ms: '800', input_tokens: '10', output_tokens: '5', cost_usd: '0.001' },
];
const hookDone = (id: string, hook: string, counts: { blocking?: number; failed?: number; cancelled?: number }): Sent => [
  'hook_execution_complete',
  {
    'prompt.id': id,
    hook_event: hook.split(':')[0]!,
    hook_name: hook,
    num_hooks: '1',
    num_success: String(1 - (counts.blocking ?? 0) - (counts.failed ?? 0) - (counts.cancelled ?? 0)),
    num_blocking: String(counts.blocking ?? 0),
    num_non_blocking_error: String(counts.failed ?? 0),
    num_cancelled: String(counts.cancelled ?? 0),
    total_duration_ms: '41',
    managed_only: 'false',
    hook_source: 'merged',
  },
];

async function ingest(records: TelemetryRecord[], digest = 'payload-1'): Promise<string> {
  const { runIds } = await new OtelIngester(store, { now: () => now, quietMs: QUIET_MS }).ingest(records, digest);
  return runIds[0]!;
}

/** Ends the quiet sessions, as the ingester's sweep does once the quiet period passed. */
async function goQuiet(): Promise<void> {
  now += QUIET_MS + 1;
  await new OtelIngester(store, { now: () => now, quietMs: QUIET_MS }).sweep();
}

const errorsOf = async (runId: string): Promise<EventOf<'errorOccurred'>[]> =>
  (await store.getEvents(runId)).filter((e): e is HivewatchEvent & EventOf<'errorOccurred'> => e.type === 'errorOccurred');
const keptOf = async (runId: string, name: string): Promise<EventOf<'externalEvent'>[]> =>
  (await store.getEvents(runId)).filter((e): e is HivewatchEvent & EventOf<'externalEvent'> => e.type === 'externalEvent' && e.name === name);

describe('Claude Code hooks', () => {
  it('a blocking hook is AGENT_HOOK_BLOCKED from hook:<name>, an error of the attempt it stopped, and its prompt ends failed with it', async () => {
    const runId = await ingest(claudeCode([prompt('p-1'), apiRequest('p-1'), hookDone('p-1', 'PreToolUse:Bash', { blocking: 1 }), apiRequest('p-1')]));
    const [error] = await errorsOf(runId);
    expect(error).toMatchObject({
      caught: true,
      taskId: 'prompt-1-p-1',
      error: {
        code: 'AGENT_HOOK_BLOCKED',
        category: 'agent',
        origin: 'hook:PreToolUse-Bash',
        recoverable: false,
        message: 'claude-code: hook PreToolUse:Bash blocked PreToolUse',
        context: { hook: 'PreToolUse:Bash', hookEvent: 'PreToolUse', blocking: 1, nonBlockingErrors: 0, cancelled: 0, hooks: 1, session: SESSION },
        correlation: { flow: 'external:claude-code', run: runId, task: 'prompt-1-p-1', attempt: 1 },
      },
    });
    expect(await errorsOf(runId)).toHaveLength(1);
    await goQuiet();
    const detail = (await store.getRun(runId))!;
    expect(detail.tasks.map((t) => [t.taskId, t.status])).toEqual([['prompt-1-p-1', 'failed']]);
    expect(detail.run).toMatchObject({ status: 'failed', lastErrorCode: 'AGENT_HOOK_BLOCKED' });
  });

  it('a PreToolUse block that Claude Code also reports as a tool_decision (source hook) is one error: the decision is kept beside it', async () => {
    const runId = await ingest(
      claudeCode([
        prompt('p-1'),
        apiRequest('p-1'),
        hookDone('p-1', 'PreToolUse:Bash', { blocking: 1 }),
        ['tool_decision', { 'prompt.id': 'p-1', decision: 'reject', source: 'hook', tool_name: 'Bash', tool_use_id: 'toolu_01' }],
      ]),
    );
    expect((await errorsOf(runId)).map((e) => e.error.code)).toEqual(['AGENT_HOOK_BLOCKED']);
    expect((await keptOf(runId, 'claude_code.tool_decision')).map((e) => [e.attributes.decision, e.attributes.source])).toEqual([['reject', 'hook']]);
  });

  it('a hook that failed without blocking, or was cancelled, is AGENT_HOOK_FAILED, handled: the prompt still succeeds', async () => {
    const runId = await ingest(
      claudeCode([prompt('p-1'), hookDone('p-1', 'PostToolUse:Edit', { failed: 1 }), hookDone('p-1', 'Stop', { cancelled: 1 }), apiRequest('p-1')]),
    );
    expect((await errorsOf(runId)).map((e) => [e.error.code, e.error.origin, e.error.message, e.error.recoverable, e.caught])).toEqual([
      ['AGENT_HOOK_FAILED', 'hook:PostToolUse-Edit', 'claude-code: hook PostToolUse:Edit failed (a non-blocking error)', true, true],
      ['AGENT_HOOK_FAILED', 'hook:Stop', 'claude-code: hook Stop was cancelled', true, true],
    ]);
    await goQuiet();
    const detail = (await store.getRun(runId))!;
    expect(detail.tasks.map((t) => t.status)).toEqual(['succeeded']);
    expect(detail.run.status).toBe('completed');
  });

  it('a hook that ran clean, and a hook starting, are facts kept as sent (names and counts), not errors', async () => {
    const runId = await ingest(
      claudeCode([
        prompt('p-1'),
        [
          'hook_execution_start',
          {
            'prompt.id': 'p-1',
            hook_event: 'PreToolUse',
            hook_name: 'PreToolUse:Read',
            num_hooks: '2',
            hook_source: 'merged',
            hook_definitions: '[{"command":"secret-check.sh"}]',
          },
        ],
        hookDone('p-1', 'PreToolUse:Read', {}),
      ]),
    );
    expect(await errorsOf(runId)).toEqual([]);
    const [started] = await keptOf(runId, 'claude_code.hook_execution_start');
    expect(started).toMatchObject({ known: true, attributes: { hook_event: 'PreToolUse', hook_name: 'PreToolUse:Read', num_hooks: '2' } });
    // A hook's definitions hold its command: not on the allow-list, never kept.
    expect(started!.attributes).not.toHaveProperty('hook_definitions');
    const [done] = await keptOf(runId, 'claude_code.hook_execution_complete');
    expect(done).toMatchObject({ known: true, attributes: { num_blocking: '0', num_non_blocking_error: '0', num_cancelled: '0', num_success: '1' } });
  });

  it('two failures of the same hook are one issue; another hook is another', async () => {
    await ingest(claudeCode([prompt('p-1'), hookDone('p-1', 'PostToolUse:Edit', { failed: 1 })]), 'payload-a');
    await ingest(
      claudeCode(
        [prompt('p-9'), hookDone('p-9', 'PostToolUse:Edit', { failed: 1 }), hookDone('p-9', 'PostToolUse:Write', { failed: 1 })],
        '0b6f1d3e-2c4a-4e7b-8f90-1a2b3c4d5e6f',
      ),
      'payload-b',
    );
    const groups = (await store.errorGroups()).map((g) => [g.code, g.origin, g.template, g.count]);
    expect(groups).toHaveLength(2);
    expect(groups).toContainEqual(['AGENT_HOOK_FAILED', 'hook:PostToolUse-Edit', 'claude-code: hook PostToolUse:Edit failed (a non-blocking error)', 2]);
    expect(groups).toContainEqual(['AGENT_HOOK_FAILED', 'hook:PostToolUse-Write', 'claude-code: hook PostToolUse:Write failed (a non-blocking error)', 1]);
  });
});

describe('Claude Code compaction', () => {
  it('a compaction that worked is a journaled fact with its token counts, not an error', async () => {
    const runId = await ingest(
      claudeCode([
        prompt('p-1'),
        ['compaction', { trigger: 'auto', success: 'true', duration_ms: '5200', pre_tokens: '156594', post_tokens: '12044' }],
        apiRequest('p-1'),
      ]),
    );
    expect(await errorsOf(runId)).toEqual([]);
    const [fact] = await keptOf(runId, 'claude_code.compaction');
    expect(fact).toMatchObject({
      known: true,
      taskId: 'prompt-1-p-1',
      attributes: { trigger: 'auto', success: 'true', pre_tokens: '156594', post_tokens: '12044', duration_ms: '5200' },
    });
  });

  it('a compaction that failed is AGENT_COMPACTION_FAILED, handled (the session goes on)', async () => {
    const runId = await ingest(
      claudeCode([
        prompt('p-1'),
        ['compaction', { trigger: 'auto', success: 'false', duration_ms: '900', pre_tokens: '181000', error: 'prompt_too_long' }],
        apiRequest('p-1'),
      ]),
    );
    const [error] = await errorsOf(runId);
    expect(error).toMatchObject({
      caught: true,
      taskId: 'prompt-1-p-1',
      error: {
        code: 'AGENT_COMPACTION_FAILED',
        origin: 'agent:claude-code',
        message: 'claude-code: auto compaction of the context failed: prompt_too_long',
        context: { trigger: 'auto', preTokens: 181000 },
      },
    });
    await goQuiet();
    expect((await store.getRun(runId))!.tasks.map((t) => t.status)).toEqual(['succeeded']);
  });
});

describe('Claude Code refusals and internal errors', () => {
  it('a refusal is AGENT_MODEL_REFUSED and its prompt ends failed with it, though the request itself succeeded', async () => {
    const runId = await ingest(
      claudeCode([
        prompt('p-1'),
        ['api_refusal', { 'prompt.id': 'p-1', model: 'claude-sonnet-4-5', request_id: 'req_01', speed: 'normal', attempt: '1', category: 'cyber' }],
        apiRequest('p-1'),
      ]),
    );
    expect((await errorsOf(runId)).map((e) => [e.error.code, e.error.origin, e.error.message, e.error.recoverable])).toEqual([
      ['AGENT_MODEL_REFUSED', 'agent:claude-code', 'claude-code: the model claude-sonnet-4-5 refused to answer (cyber)', false],
    ]);
    await goQuiet();
    const detail = (await store.getRun(runId))!;
    expect(detail.tasks.map((t) => t.status)).toEqual(['failed']);
    expect(detail.run).toMatchObject({ status: 'failed', lastErrorCode: 'AGENT_MODEL_REFUSED' });
  });

  it("an internal error is the CLI's own: RUNTIME_INTERNAL_ERROR from runtime:claude-code", async () => {
    const runId = await ingest(claudeCode([prompt('p-1'), ['internal_error', { error_name: 'TypeError', error_code: 'ERR_INVALID_ARG_TYPE' }]]));
    expect((await errorsOf(runId)).map((e) => [e.error.code, e.error.category, e.error.origin, e.error.message, e.caught])).toEqual([
      ['RUNTIME_INTERNAL_ERROR', 'runtime', 'runtime:claude-code', 'claude-code: internal error TypeError (ERR_INVALID_ARG_TYPE)', true],
    ]);
  });
});

describe('Claude Code MCP servers', () => {
  it('a server that failed to connect is AGENT_MCP_CONNECTION_FAILED from mcp:<server>, of no prompt when it failed at start-up', async () => {
    const runId = await ingest(
      claudeCode([
        [
          'mcp_server_connection',
          {
            status: 'failed',
            transport_type: 'stdio',
            server_scope: 'project',
            duration_ms: '30012',
            is_plugin: 'false',
            error_code: '-32000',
            server_name: 'github',
            error: 'Connection closed',
          },
        ],
        [
          'mcp_server_connection',
          { status: 'connected', transport_type: 'http', server_scope: 'user', duration_ms: '120', is_plugin: 'false', server_name: 'linear' },
        ],
        prompt('p-1'),
        apiRequest('p-1'),
      ]),
    );
    const errors = await errorsOf(runId);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      caught: true,
      taskId: null,
      ordinal: null,
      error: {
        code: 'AGENT_MCP_CONNECTION_FAILED',
        category: 'agent',
        origin: 'mcp:github',
        message: 'claude-code: MCP server github failed to connect: Connection closed',
        context: { server: 'github', transport: 'stdio', errorCode: '-32000' },
        correlation: { task: null, attempt: null },
      },
    });
    const [connected] = await keptOf(runId, 'claude_code.mcp_server_connection');
    expect(connected).toMatchObject({ known: true, attributes: { status: 'connected', server_name: 'linear', transport_type: 'http' } });
    await goQuiet();
    expect((await store.getRun(runId))!.run.status).toBe('completed');
  });

  it('a server Claude Code does not name (tool details off) is mcp:unnamed, and says why', async () => {
    const runId = await ingest(
      claudeCode([
        ['mcp_server_connection', { status: 'failed', transport_type: 'stdio', server_scope: 'local', duration_ms: '5', is_plugin: 'false', error_code: '1' }],
      ]),
    );
    expect((await errorsOf(runId)).map((e) => [e.error.origin, e.error.message])).toEqual([
      ['mcp:unnamed', 'claude-code: MCP server (not named: OTEL_LOG_TOOL_DETAILS is off) failed to connect'],
    ]);
  });
});
