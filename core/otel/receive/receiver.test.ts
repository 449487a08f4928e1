import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { otelToken, startOtlpReceiver, type OtlpReceiver } from './receiver.js';
import { fixture, UNHURRIED_QUEUE } from '../testing.js';

let store: HivewatchStore;
let receiver: OtlpReceiver;

beforeEach(async () => {
  store = await openStore({ path: ':memory:' });
  receiver = await startOtlpReceiver({ store, port: 0, maxBodyBytes: 64 * 1024, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
});
afterEach(async () => {
  await receiver.close();
  await store.close();
});

interface Sent {
  status: number;
  body: string;
}

async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${receiver.endpoint}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: res.status, body: await res.text() };
}

const journal = async (): Promise<{ events: number; errors: number; runs: number }> => {
  const s = await store.stats();
  return { events: s.events, errors: s.errors, runs: s.runs };
};

describe('OTLP receiver', () => {
  it('takes JSON and gzipped protobuf logs, and traces, at /v1/logs and /v1/traces', async () => {
    expect(await post('/v1/logs', fixture('claude-code-logs', 'json'))).toEqual({ status: 200, body: '{}' });
    const pb = await post('/v1/logs', gzipSync(fixture('codex-cli-logs', 'protobuf')), {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
    });
    expect(pb).toEqual({ status: 200, body: '' });
    expect((await post('/v1/traces', fixture('codex-cli-traces', 'json'))).status).toBe(200);
    expect((await journal()).runs).toBe(3);
    expect((await store.errorCounts({ by: 'origin' })).map((c) => [c.key, c.count])).toEqual(
      expect.arrayContaining([
        ['runtime:claude-code', 3],
        ['runtime:codex-cli', 4],
      ]),
    );
  });

  it('keeps the token with the database', async () => {
    expect(receiver.token).toBe(await otelToken(store));
    expect(await store.getSetting('otel.token')).toBe(receiver.token);
  });

  it('answers 401 to a missing or wrong token and writes nothing', async () => {
    const before = await journal();
    const missing = await post('/v1/logs', fixture('claude-code-logs', 'json'), { authorization: '' });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toEqual({ error: 'missing or wrong ingest token: send Authorization: Bearer <token> (see `hivewatch otel-env`)' });
    expect((await post('/v1/logs', fixture('claude-code-logs', 'json'), { authorization: `Bearer ${receiver.token}x` })).status).toBe(401);
    expect(await journal()).toEqual(before);
  });

  it('answers 400 with a reason to malformed payloads, 413 to oversized ones, and writes nothing', async () => {
    const before = await journal();
    const malformed = await post('/v1/logs', '{"resourceLogs": [');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error).toMatch(/^malformed OTLP payload: the body is not JSON: /);
    const badPb = await post('/v1/logs', Buffer.from([0x0a, 0xff, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(badPb.status).toBe(400);
    expect(JSON.parse(badPb.body).error).toMatch(/^malformed OTLP payload: the body is not a protobuf ExportLogsServiceRequest/);
    const oversized = await post('/v1/logs', Buffer.alloc(65 * 1024, 0x20));
    expect(oversized).toEqual({ status: 413, body: JSON.stringify({ error: `payload too large: ${65 * 1024} bytes (the limit is ${64 * 1024})` }) });
    const bomb = await post('/v1/logs', gzipSync(Buffer.alloc(1024 * 1024, 0x20)), { 'content-encoding': 'gzip' });
    expect(bomb).toEqual({ status: 413, body: JSON.stringify({ error: `payload too large once decompressed: over ${64 * 1024} bytes (the limit)` }) });
    const notGzip = await post('/v1/logs', 'plain', { 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);
    expect(JSON.parse(notGzip.body).error).toMatch(/^the body is not valid gzip: /);
    expect((await post('/v1/logs', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('/v1/profiles', '{}')).status).toBe(404);
    expect(await journal()).toEqual(before);
  });

  it('keeps an unknown event, and counts a resent payload once', async () => {
    const unknown = JSON.stringify({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: '1763900000000000000',
                  body: { stringValue: 'claude_code.brand_new' },
                  attributes: [{ key: 'session.id', value: { stringValue: 's-9' } }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect((await post('/v1/logs', unknown)).status).toBe(200);
    expect((await post('/v1/logs', unknown)).status).toBe(200);
    const runId = (await store.listRuns()).runs[0]!.id;
    expect((await store.getEvents(runId)).filter((e) => e.type === 'externalEvent')).toEqual([
      expect.objectContaining({ name: 'claude_code.brand_new', known: false }),
    ]);
  });
});
