import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { startOtlpReceiver, type OtlpReceiver } from './receiver.js';
import { UNHURRIED_QUEUE } from '../testing.js';

/**
 * An exporter that sends a protobuf batch over the receiver's limit as blocking HTTP clients do
 * (an OpenTelemetry SDK's exporter on urllib3, Go's net/http): the whole body is written first,
 * with Content-Length or chunked, and the answer read only then. It must read 413 with the reason;
 * its write must not fail (EPIPE, ECONNRESET) because the receiver cut the connection while the
 * body was still arriving: a reset also discards the answer the client had not read yet.
 */

const LIMIT = 1024 * 1024;

let store: HivewatchStore;
let receiver: OtlpReceiver;

beforeEach(async () => {
  store = await openStore({ path: ':memory:' });
  receiver = await startOtlpReceiver({ store, port: 0, maxBodyBytes: LIMIT, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
});
afterEach(async () => {
  await receiver.close();
  await store.close();
});

interface Outcome {
  status: number | null;
  body: string;
  /** What the client's socket failed with (its write or the read after it), if anything. */
  failure: string | null;
}

/** POSTs `bytes` on a socket that reads nothing until the whole request is written, then reads the answer. */
function exportBatch(bytes: number, declareLength: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL(receiver.endpoint);
    const socket = connect(Number(url.port), url.hostname);
    socket.pause();
    let received = '';
    let failure: string | null = null;
    socket.on('error', (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message));
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
      resolve({ status: status === undefined ? null : Number(status), body, failure });
    });
    // 0x0a…: a protobuf field tag, so the bytes look like the start of an ExportLogsServiceRequest.
    const payload = Buffer.alloc(bytes, 0x0a);
    const framing = declareLength ? `Content-Length: ${bytes}` : 'Transfer-Encoding: chunked';
    socket.write(
      `POST /v1/logs HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${receiver.token}\r\nContent-Type: application/x-protobuf\r\n${framing}\r\nConnection: close\r\n\r\n`,
    );
    if (!declareLength) socket.write(`${bytes.toString(16)}\r\n`);
    socket.write(payload);
    socket.write(declareLength ? '' : '\r\n0\r\n\r\n', () => {
      socket.setEncoding('utf8').on('data', (text: string) => (received += text));
      socket.resume();
    });
  });
}

describe('an oversized protobuf batch', () => {
  it.each([
    ['streamed (chunked)', false, `payload too large: over ${LIMIT} bytes (the limit)`],
    ['with its Content-Length', true, `payload too large: ${4 * LIMIT} bytes (the limit is ${LIMIT})`],
  ])('%s: the exporter reads 413 with the reason, its write does not fail, and nothing is written', async (_name, declareLength, reason) => {
    const outcome = await exportBatch(4 * LIMIT, declareLength);
    expect(outcome).toEqual({ status: 413, body: JSON.stringify({ error: reason }), failure: null });
    expect((await store.stats()).events).toBe(0);
  });
});
