import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventOf, HivewatchEvent } from '../base/events.js';
import { openStore, type HivewatchStore } from '../store/index.js';
import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import { CLI_PINS } from '../../agents-real/pins.js';
import { decodeOtlp, type OtlpEncoding, type TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';
import { claudeCodeLogs } from './testing.js';

/**
 * Permission decisions (Claude Code's and Codex's `tool_decision`) are journaled with who made
 * them (`source`), and a refusal's AGENT_SCOPE_VIOLATION points at the decision that refused
 * (docs/otel.md "Mapping"). Through the ingester into a real SQLite store: Claude Code 2.1.332's
 * recording of a PermissionRequest hook's denial, and hand-written records for every source and
 * decision no print-mode run can produce (a person's, Codex's).
 */

let dir: string;
let store: HivewatchStore;
const T0 = 1763900000000;
const SESSION = '3e9b1c55-6d2a-4f0e-8b7c-9a1d2e3f4a5b';

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-decisions-'));
  store = await openStore({ path: join(dir, 'hw.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ingest(records: TelemetryRecord[]): Promise<HivewatchEvent[]> {
  const { runIds } = await new OtelIngester(store, { now: () => T0 + 100_000 }).ingest(records, 'payload-1');
  return store.getEvents(runIds[0]!);
}

const decision = (decided: string, source: string): [string, Record<string, string>] => [
  'tool_decision',
  { 'prompt.id': 'p-1', decision: decided, source, tool_name: 'Bash', tool_use_id: 'toolu_01', tool_source: 'builtin' },
];
const decisionsOf = (events: HivewatchEvent[], name: string): (HivewatchEvent & EventOf<'externalEvent'>)[] =>
  events.filter((e): e is HivewatchEvent & EventOf<'externalEvent'> => e.type === 'externalEvent' && e.name === name);
const errorsOf = (events: HivewatchEvent[]): (HivewatchEvent & EventOf<'errorOccurred'>)[] =>
  events.filter((e): e is HivewatchEvent & EventOf<'errorOccurred'> => e.type === 'errorOccurred');

describe('Claude Code tool_decision, every source and decision (hand-written: a print-mode run decides by its configuration or a hook, never by a person)', () => {
  it.each(['config', 'hook', 'user_permanent', 'user_temporary'])(
    'an accepted call (source %s) is journaled with its source, and is no error',
    async (source) => {
      const events = await ingest(claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-1' }], decision('accept', source)], SESSION, T0));
      expect(
        decisionsOf(events, 'claude_code.tool_decision').map((e) => [e.known, e.attributes.decision, e.attributes.source, e.attributes.tool_name]),
      ).toEqual([[true, 'accept', source, 'Bash']]);
      expect(errorsOf(events)).toEqual([]);
    },
  );

  it.each(['config', 'hook', 'user_reject', 'user_abort'])(
    'a refusal (source %s) is journaled with its source, and its AGENT_SCOPE_VIOLATION points at it',
    async (source) => {
      const events = await ingest(claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-1' }], decision('reject', source)], SESSION, T0));
      const [decided] = decisionsOf(events, 'claude_code.tool_decision');
      expect(decided).toMatchObject({ known: true, taskId: 'prompt-1-p-1', attributes: { decision: 'reject', source } });
      const errors = errorsOf(events);
      expect(errors.map((e) => [e.error.code, e.error.context.source, e.error.context.decisionSeq])).toEqual([['AGENT_SCOPE_VIOLATION', source, decided!.seq]]);
      // The decision comes first in the journal: the error points back at it.
      expect(decided!.seq).toBeLessThan(errors[0]!.seq);
    },
  );
});

describe(`Claude Code ${CLI_PINS['claude-code'].version} as recorded: a PermissionRequest hook that denies`, () => {
  it('the denial is journaled with source hook, and its one AGENT_SCOPE_VIOLATION points at it (no AGENT_HOOK_BLOCKED: the CLI reports no hook_execution_complete for it)', async () => {
    const f = readFixture('claude-code', 'permission-hook-denies.json-out.otlp-json.default-retries');
    if (!f) throw new Error('no recording of the permission-hook-denies scenario');
    const unlinked = (attrs: TelemetryRecord['resource']) => Object.fromEntries(Object.entries(attrs).filter(([key]) => !key.startsWith('hivewatch.')));
    const records = f.exports
      .filter((e) => e.signal === 'logs')
      .flatMap((e) => decodeOtlp('logs', e.encoding as OtlpEncoding, e.payload))
      .map((r) => ({ ...r, resource: unlinked(r.resource) }));
    const events = await ingest(records);
    const [decided, ...more] = decisionsOf(events, 'claude_code.tool_decision');
    expect(more).toEqual([]);
    expect(decided).toMatchObject({ known: true, attributes: { decision: 'reject', source: 'hook', tool_name: 'Bash' } });
    expect(errorsOf(events).map((e) => [e.error.code, e.error.context.source, e.error.context.decisionSeq])).toEqual([
      ['AGENT_SCOPE_VIOLATION', 'hook', decided!.seq],
    ]);
  });
});

describe('Codex tool_decision (hand-written: codex exec never asks a person)', () => {
  it.each([
    ['approved', 'config'],
    ['approved_for_session', 'user'],
    ['denied', 'user'],
    ['abort', 'user'],
  ])('%s (source %s) is journaled with its source', async (decided, source) => {
    const body = {
      resourceLogs: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { stringValue: 'codex_exec' } },
              { key: 'service.version', value: { stringValue: '0.171.0' } },
            ],
          },
          scopeLogs: [
            {
              scope: { name: 'codex_otel' },
              logRecords: [
                {
                  timeUnixNano: `${(T0 + 1000) * 1_000_000}`,
                  attributes: Object.entries({
                    'event.name': 'codex.tool_decision',
                    'conversation.id': SESSION,
                    tool_name: 'shell',
                    call_id: 'call_01',
                    decision: decided,
                    source,
                  }).map(([key, value]) => ({ key, value: { stringValue: value } })),
                },
              ],
            },
          ],
        },
      ],
    };
    const events = await ingest(decodeOtlp('logs', 'json', Buffer.from(JSON.stringify(body))));
    expect(decisionsOf(events, 'codex.tool_decision').map((e) => [e.known, e.attributes.decision, e.attributes.source, e.attributes.call_id])).toEqual([
      [true, decided, source, 'call_01'],
    ]);
  });
});
