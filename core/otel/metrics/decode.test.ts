import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../agents-real/recording/fixtures-io.js';
import { OtlpDecodeError, own } from '../receive/decode.js';
import { ExportMetricsServiceRequest } from '../receive/schema.js';
import { CODEX_MULTI_AGENT_SPAWN, CODEX_THREAD_STARTED, readMetricPoints } from './codex.js';
import { decodeMetrics } from './decode.js';

/**
 * OTLP metrics bodies against what the real Codex 0.171.0 exported (agents-real/fixtures/codex-cli,
 * scenario `subagent`, one run per protocol): every point read with its attributes and resource,
 * the two encodings alike, and a body that is not a metrics request refused with its reason.
 */

function metricsExport(run: string): { encoding: 'json' | 'protobuf'; payload: Buffer } {
  const f = readFixture('codex-cli', run);
  const e = f?.exports.find((x) => x.signal === 'metrics');
  if (!e) throw new Error(`no metrics export in codex-cli/${run}`);
  return { encoding: e.encoding as 'json' | 'protobuf', payload: e.payload };
}

const JSON_RUN = 'subagent.json-out.otlp-json.default-retries';
const PROTOBUF_RUN = 'subagent.plain-out.otlp-protobuf.default-retries';
const SPAWNED = /^subagent_thread_spawn_[0-9a-f-]{36}_d1$/;

describe('OTLP metrics decoding (real Codex 0.171.0 exports)', () => {
  it.each([JSON_RUN, PROTOBUF_RUN])('reads the thread and spawn points of %s with their attributes and resource', (run) => {
    const { encoding, payload } = metricsExport(run);
    const points = decodeMetrics(encoding, payload);
    expect(points.length).toBeGreaterThan(50);
    const started = points.filter((p) => p.metric === CODEX_THREAD_STARTED);
    expect(started.map((p) => [p.kind, p.value, p.attributes.session_source])).toEqual(
      expect.arrayContaining([
        ['sum', 1, 'exec'],
        ['sum', 1, expect.stringMatching(SPAWNED)],
      ]),
    );
    expect(started).toHaveLength(2);
    const spawn = points.filter((p) => p.metric === CODEX_MULTI_AGENT_SPAWN);
    expect(spawn.map((p) => [p.kind, p.value, p.attributes.role, p.attributes.version, p.attributes.session_source])).toEqual([
      ['sum', 1, 'default', 'v2', 'exec'],
    ]);
    // One resource per process: no thread's id on it, nor on any point.
    const resource = started[0]!.resource;
    expect([resource['service.name'], resource['service.version']]).toEqual(['codex_exec', '0.171.0']);
    expect(points.some((p) => 'conversation.id' in p.attributes || 'conversation.id' in p.resource || 'thread_id' in p.attributes)).toBe(false);
    expect(started.every((p) => Number.isFinite(p.timeMs) && p.timeMs > 0 && p.timeField === 'timeUnixNano')).toBe(true);
    // A histogram's point gives its count.
    expect(points.find((p) => p.kind === 'histogram')?.value).toBeGreaterThan(0);

    const reading = readMetricPoints(points);
    expect(reading.records.map((r) => [r.name, r.signal, r.attributes.session_source, r.attributes['metric.value']])).toEqual([
      [CODEX_THREAD_STARTED, 'metrics', expect.stringMatching(SPAWNED), 1],
    ]);
    expect([reading.read, reading.dropped]).toEqual([1, points.length - 2]);
  });

  it('decodes a body alike in JSON and in protobuf', () => {
    const { payload } = metricsExport(JSON_RUN);
    const json = decodeMetrics('json', payload);
    const message = ExportMetricsServiceRequest.fromObject(JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
    const protobuf = decodeMetrics('protobuf', Buffer.from(ExportMetricsServiceRequest.encode(message).finish()));
    expect(protobuf).toEqual(json);
  });

  it('refuses what is not a metrics request, naming why', () => {
    const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
    const refusals: [string, Buffer, RegExp][] = [
      ['not JSON', Buffer.from('{"resourceMetrics": ['), /not JSON/],
      ['an array', json([]), /must be a JSON object/],
      ['resourceMetrics not a list', json({ resourceMetrics: {} }), /resourceMetrics must be an array/],
      ['a metric not an object', json({ resourceMetrics: [{ scopeMetrics: [{ metrics: ['x'] }] }] }), /metrics\[0\] must be an object/],
      [
        'points not a list',
        json({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { dataPoints: 3 } }] }] }] }),
        /sum\.dataPoints must be an array/,
      ],
      [
        'an attribute without a key',
        json({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ attributes: [{ value: {} }] }] } }] }] }] }),
        /must be a \{key, value\} object/,
      ],
      [
        'a time that is not nanoseconds',
        json({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { dataPoints: [{ timeUnixNano: 'soon' }] } }] }] }] }),
        /unsigned integer of nanoseconds/,
      ],
    ];
    for (const [what, body, reason] of refusals) {
      expect(() => decodeMetrics('json', body), what).toThrow(OtlpDecodeError);
      expect(() => decodeMetrics('json', body), what).toThrow(reason);
    }
    expect(() => decodeMetrics('protobuf', Buffer.from([0x0a, 0xff, 0xff, 0xff]))).toThrow(/not a protobuf ExportMetricsServiceRequest/);
  });

  it("drops another sender's points, Claude Code's cost and token counters among them (its log events carry those figures)", () => {
    const point = (service: string, metric: string, attributes: Record<string, string>) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeMetrics: [
        {
          metrics: [
            {
              name: metric,
              sum: {
                dataPoints: [
                  {
                    asDouble: 0.25,
                    timeUnixNano: '1795972113058447199',
                    attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: { stringValue: v } })),
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const spawned = `subagent_thread_spawn_01a2285a-e15c-7dc3-9690-6a8b714ea6f4_d1`;
    const body = {
      resourceMetrics: [
        point('claude-code', 'claude_code.cost.usage', { 'session.id': 's1', model: 'claude-opus-5-5' }),
        point('claude-code', 'claude_code.token.usage', { 'session.id': 's1', type: 'input' }),
        // The same name and source from a sender that is not Codex: not Codex's point.
        point('some-app', CODEX_THREAD_STARTED, { session_source: spawned }),
        point('codex_exec', CODEX_THREAD_STARTED, { session_source: spawned }),
      ],
    };
    const reading = readMetricPoints(decodeMetrics('json', Buffer.from(JSON.stringify(body))));
    expect(reading.records.map((r) => [own(r.resource, 'service.name'), r.name, r.attributes['metric.value']])).toEqual([
      ['codex_exec', CODEX_THREAD_STARTED, 0.25],
    ]);
    expect([reading.read, reading.dropped]).toEqual([0, 3]);
  });

  it('reads a point without a value, and a metric without data, as nothing to count', () => {
    const body = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex_exec' } }] },
          scopeMetrics: [{ metrics: [{ name: 'empty' }, { name: CODEX_THREAD_STARTED, sum: { dataPoints: [{ attributes: [] }] } }] }],
        },
      ],
    };
    const points = decodeMetrics('json', Buffer.from(JSON.stringify(body)));
    expect(points.map((p) => [p.metric, p.value, p.timeMs])).toEqual([[CODEX_THREAD_STARTED, null, 0]]);
    // Without a spawned source the point is dropped: it names no thread that spawned.
    expect(readMetricPoints(points)).toEqual({ records: [], read: 0, dropped: 1 });
  });
});
