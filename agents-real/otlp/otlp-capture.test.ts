import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportLogsServiceRequest } from '../../core/otel/receive/schema.js';
import { startOtlpCapture, type OtlpCapture } from './otlp-capture.js';
import { logEntries, logName } from './telemetry.js';

let capture: OtlpCapture | null = null;
afterEach(async () => {
  await capture?.close();
  capture = null;
});

const logsJson = (name: string): Record<string, unknown> => ({
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'test-cli' } }] },
      scopeLogs: [
        {
          scope: { name: 'test' },
          logRecords: [{ timeUnixNano: '1', body: { stringValue: name }, attributes: [{ key: 'event.name', value: { stringValue: name.split('.')[1] } }] }],
        },
      ],
    },
  ],
});

function send(url: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; type: string; body: string }> {
  return fetch(`${url}${path}`, { method: 'POST', headers, body: new Uint8Array(body) }).then(async (r) => ({
    status: r.status,
    type: r.headers.get('content-type') ?? '',
    body: await r.text(),
  }));
}

describe('the OTLP capture', () => {
  it('keeps a JSON export with its headers, the Authorization value redacted and checked against the token; answers {}', async () => {
    capture = await startOtlpCapture({ token: 'tok' });
    const body = Buffer.from(JSON.stringify(logsJson('cli.started')));
    expect(await send(capture.url, '/v1/logs', body, { 'content-type': 'application/json', authorization: 'Bearer tok' })).toEqual({
      status: 200,
      type: 'application/json',
      body: '{}',
    });
    await send(capture.url, '/v1/logs', body, { 'content-type': 'application/json', authorization: 'Bearer wrong' });
    expect(capture.exports.map((e) => [e.seq, e.signal, e.encoding, e.authorized, e.headers.authorization])).toEqual([
      [1, 'logs', 'json', true, 'Bearer <redacted>'],
      [2, 'logs', 'json', false, 'Bearer <redacted>'],
    ]);
    expect(capture.exports[0]?.body.equals(body)).toBe(true);
    expect(logEntries(capture.exports).map(logName)).toEqual(['cli.started', 'cli.started']);
  });

  it('keeps a protobuf export as received and answers an empty protobuf body; it reads back like its JSON twin', async () => {
    capture = await startOtlpCapture({ token: 'tok' });
    const message = ExportLogsServiceRequest.fromObject(logsJson('cli.done'));
    const body = Buffer.from(ExportLogsServiceRequest.encode(message).finish());
    expect(await send(capture.url, '/v1/logs', body, { 'content-type': 'application/x-protobuf' })).toEqual({
      status: 200,
      type: 'application/x-protobuf',
      body: '',
    });
    const [entry] = logEntries(capture.exports);
    expect(entry).toMatchObject({ body: 'cli.done', attributes: { 'event.name': 'done' }, resource: { 'service.name': 'test-cli' }, scope: 'test' });
  });

  it('keeps a gzip body compressed as received and decompressed beside it; traces and metrics have their own signal', async () => {
    capture = await startOtlpCapture({ token: 'tok' });
    const json = Buffer.from(JSON.stringify({ resourceSpans: [] }));
    await send(capture.url, '/v1/traces', gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    await send(capture.url, '/v1/metrics', json, { 'content-type': 'application/json' });
    expect(capture.exports.map((e) => [e.signal, e.contentEncoding])).toEqual([
      ['traces', 'gzip'],
      ['metrics', null],
    ]);
    expect(capture.exports[0]?.payload.equals(json)).toBe(true);
    expect(capture.exports[0]?.body.equals(json)).toBe(false);
  });

  it('idle() waits for an export still being sent', async () => {
    capture = await startOtlpCapture({ token: 'tok' });
    const c = capture;
    const port = Number(new URL(c.url).port);
    const req = request({ host: '127.0.0.1', port, path: '/v1/logs', method: 'POST', headers: { 'content-type': 'application/json' } });
    const answered = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)));
    const body = JSON.stringify(logsJson('cli.slow'));
    req.write(body.slice(0, 10));
    await expect.poll(() => c.inFlight() === 1, { message: 'the capture to be reading the export', timeout: 20_000 }).toBeTruthy();
    let idle = false;
    const waiting = c.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    req.end(body.slice(10));
    await waiting;
    // idle() resolved only once the export was taken in.
    expect(c.exports).toHaveLength(1);
    expect(await answered).toBe(200);
    expect(c.inFlight()).toBe(0);
  });
});
