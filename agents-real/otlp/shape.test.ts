import { describe, expect, it } from 'vitest';
import type { CapturedExport } from './otlp-capture.js';
import { commonShape, missingFrom, newIn, requiredShape, seenShape, shapeOf, type RunShape } from './shape.js';

type Attr = [string, Record<string, unknown>];

function logsExport(
  seq: number,
  records: { body?: string; name: string; attrs?: Attr[] }[],
  resource: Attr[] = [['service.name', { stringValue: 'cli' }]],
): CapturedExport {
  const doc = {
    resourceLogs: [
      {
        resource: { attributes: resource.map(([key, value]) => ({ key, value })) },
        scopeLogs: [
          {
            scope: { name: 'scope' },
            logRecords: records.map((r) => ({
              ...(r.body ? { body: { stringValue: r.body } } : {}),
              attributes: [['event.name', { stringValue: r.name }] as Attr, ...(r.attrs ?? [])].map(([key, value]) => ({ key, value })),
            })),
          },
        ],
      },
    ],
  };
  const body = Buffer.from(JSON.stringify(doc));
  return {
    seq,
    path: '/v1/logs',
    signal: 'logs',
    encoding: 'json',
    contentType: 'application/json',
    contentEncoding: null,
    headers: {},
    authorized: true,
    body,
    payload: body,
  };
}

function tracesExport(seq: number, spans: { name: string; events: { name: string; attrs: Attr[] }[] }[]): CapturedExport {
  const doc = {
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: 'tracer' },
            spans: spans.map((s) => ({
              name: s.name,
              attributes: [],
              events: s.events.map((e) => ({ name: e.name, attributes: e.attrs.map(([key, value]) => ({ key, value })) })),
            })),
          },
        ],
      },
    ],
  };
  const body = Buffer.from(JSON.stringify(doc));
  return {
    seq,
    path: '/v1/traces',
    signal: 'traces',
    encoding: 'json',
    contentType: 'application/json',
    contentEncoding: null,
    headers: {},
    authorized: true,
    body,
    payload: body,
  };
}

const claudeStdout = ['{"type":"system","subtype":"init","cwd":"/x"}', '{"type":"result","subtype":"success","is_error":true,"result":"x"}', 'not json'].join(
  '\n',
);

describe('run shapes', () => {
  it('names stdout lines by type/subtype or type/item type, logs by event name (Claude Code: the prefixed body), with typed attribute keys', () => {
    const shape = shapeOf({
      cli: 'claude-code',
      stdout: `${claudeStdout}\n{"type":"item.completed","item":{"type":"agent_message","text":"t"}}`,
      otlp: [
        logsExport(1, [
          {
            body: 'claude_code.api_error',
            name: 'api_error',
            attrs: [
              ['status_code', { intValue: 429 }],
              ['error', { stringValue: 'x' }],
            ],
          },
        ]),
      ],
    });
    expect(Object.keys(shape.stdout)).toEqual(['item.completed/agent_message', 'result/success', 'system/init']);
    expect(shape.stdout['item.completed/agent_message']).toEqual(['item', 'item.text', 'item.type', 'type']);
    expect(shape.logs).toEqual({ 'claude_code.api_error': ['error:string', 'event.name:string', 'status_code:number'] });
    expect(shape.logResource).toEqual(['service.name:string']);
  });

  it('Codex: span events are named by their event.name; only spans that carry events are in the shape', () => {
    const shape = shapeOf({
      cli: 'codex-cli',
      stdout: '',
      otlp: [
        tracesExport(1, [
          { name: 'fs.read_file', events: [] },
          {
            name: 'turn',
            events: [
              {
                name: 'event core/src/x.rs:12',
                attrs: [
                  ['event.name', { stringValue: 'codex.retry' }],
                  ['retry.layer', { stringValue: 'http' }],
                ],
              },
            ],
          },
        ]),
      ],
    });
    expect(shape.spans).toEqual({ turn: [] });
    expect(shape.spanEvents).toEqual({ 'codex.retry': ['event.name:string', 'retry.layer:string'] });
  });

  it('common and seen shapes: what all had, what any had', () => {
    const a: RunShape = { stdout: { x: ['a', 'b'] }, logs: { e: ['k:string'], f: [] }, logResource: ['r:string'], spans: {}, spanEvents: {} };
    const b: RunShape = { stdout: { x: ['b', 'c'] }, logs: { e: ['k:string', 'l:number'] }, logResource: [], spans: {}, spanEvents: {} };
    expect(commonShape([a, b])).toEqual({ stdout: { x: ['b'] }, logs: { e: ['k:string'] }, logResource: [], spans: {}, spanEvents: {} });
    expect(seenShape([a, b])).toEqual({
      stdout: { x: ['a', 'b', 'c'] },
      logs: { e: ['k:string', 'l:number'], f: [] },
      logResource: ['r:string'],
      spans: {},
      spanEvents: {},
    });
  });

  it('names every change a fresh run shows: a gone event, a gone key, a retyped key, a gone resource key; and new names apart', () => {
    const required: RunShape = {
      stdout: { 'result/success': ['api_error_status', 'result'] },
      logs: { 'x.api_error': ['status_code:number', 'attempt:number'], 'x.gone': [] },
      logResource: ['service.name:string'],
      spans: {},
      spanEvents: {},
    };
    const fresh: RunShape = {
      stdout: { 'result/success': ['result'] },
      logs: { 'x.api_error': ['status_code:string', 'attempt:number'], 'x.new': [] },
      logResource: [],
      spans: {},
      spanEvents: {},
    };
    expect(missingFrom(required, fresh)).toEqual([
      'stdout line "result/success": "api_error_status" is gone',
      'OTLP log event "x.api_error": "status_code:number" is now "status_code:string"',
      'OTLP log event "x.gone" is no longer sent',
      'OTLP log resource: "service.name:string" is gone',
    ]);
    expect(missingFrom(required, required)).toEqual([]);
    expect(newIn(required, fresh)).toEqual(['OTLP log event "x.new" is new']);
  });

  it('what a fresh run must have: Claude Code logs always, less timed events, its traces from exit-0 runs; Codex logs only from exit-0 runs, its traces never', () => {
    const shape: RunShape = {
      stdout: { 'turn.failed': ['type'] },
      logs: { 'codex.api_request': ['attempt:number'], 'claude_code.retention_sweep': [] },
      logResource: ['env:string'],
      spans: { turn: [] },
      spanEvents: { 'codex.retry': [] },
    };
    const failed = requiredShape('codex-cli', [{ shape, exitCode: 1, killedBy: null }]);
    expect(failed).toEqual({ stdout: shape.stdout, logs: {}, logResource: [], spans: {}, spanEvents: {} });
    const passed = requiredShape('codex-cli', [{ shape, exitCode: 0, killedBy: null }]);
    expect(passed.logs).toEqual(shape.logs);
    expect(passed.spanEvents).toEqual({});
    const claude = requiredShape('claude-code', [{ shape, exitCode: 1, killedBy: null }]);
    expect(claude.logs).toEqual({ 'codex.api_request': ['attempt:number'] });
    expect(claude.spanEvents).toEqual({});
    expect(requiredShape('claude-code', [{ shape, exitCode: 0, killedBy: null }]).spanEvents).toEqual(shape.spanEvents);
  });
});
