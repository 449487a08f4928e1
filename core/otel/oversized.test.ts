import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../store/index.js';
import { startOtlpReceiver, type OtlpReceiver } from './receiver.js';

/**
 * An exporter that sends a protobuf batch over the receiver's limit, as exporters do: the whole
 * body written in chunks, with or without Content-Length, the answer read only once it is sent.
 * It must read 413 with the reason; its write must not fail (EPIPE, ECONNRESET) because the
 * receiver cut the connection while the body was still arriving.
 */

const LIMIT = 64 * 1024;
const CHUNK = 16 * 1024;

let store: HivewatchStore;
let receiver: OtlpReceiver;

beforeEach(async () => {
  store = await openStore({ path: ':memory:' });
  receiver = await startOtlpReceiver({ store, port: 0, maxBodyBytes: LIMIT, sweepEveryMs: 0 });
});
afterEach(async () => {
  await receiver.close();
  await store.close();
});

interface Outcome {
  status: number | null;
  body: string;
  /** What the client's request failed with (its write or the connection), if anything. */
  failure: string | null;
}

/** POSTs `bytes` in CHUNK writes, each after the last was flushed; resolves with what came back. */
function exportBatch(bytes: number, declareLength: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL(`${receiver.endpoint}/v1/logs`);
    const headers: Record<string, string | number> = { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/x-protobuf' };
    if (declareLength) headers['content-length'] = bytes;
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers });
    let settled = false;
    const settle = (outcome: Outcome): void => {
      if (!settled) resolve(outcome);
      settled = true;
    };
    req.on('error', (error: NodeJS.ErrnoException) => settle({ status: null, body: '', failure: error.code ?? error.message }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (text: string) => (body += text));
      res.on('end', () => settle({ status: res.statusCode ?? null, body, failure: null }));
    });
    let sent = 0;
    const writeNext = (): void => {
      if (sent >= bytes) {
        req.end();
        return;
      }
      const size = Math.min(CHUNK, bytes - sent);
      sent += size;
      // 0x0a…: a protobuf field tag, so the bytes look like the start of an ExportLogsServiceRequest.
      req.write(Buffer.alloc(size, 0x0a), () => writeNext());
    };
    writeNext();
  });
}

describe('an oversized protobuf batch', () => {
  it.each([
    ['streamed (chunked)', false, `payload too large: over ${LIMIT} bytes (the limit)`],
    ['with its Content-Length', true, `payload too large: ${3 * LIMIT} bytes (the limit is ${LIMIT})`],
  ])('%s: the exporter reads 413 with the reason, its write does not fail, and nothing is written', async (_name, declareLength, reason) => {
    const outcome = await exportBatch(3 * LIMIT, declareLength);
    expect(outcome).toEqual({ status: 413, body: JSON.stringify({ error: reason }), failure: null });
    expect((await store.stats()).events).toBe(0);
  });
});
