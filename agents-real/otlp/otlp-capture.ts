import { gunzipSync, inflateSync } from 'node:zlib';
import { listenLoopback, redactedHeaders } from '../stubs/loopback.js';

/**
 * An OTLP/HTTP receiver that keeps everything: every request a CLI's exporters send (logs,
 * traces, and metrics should one be turned on), its headers (the Authorization value redacted,
 * whether it matched the token recorded instead), and its body exactly as received. It answers
 * 200 with an empty export response in the request's own encoding (`{}` for JSON, zero bytes
 * for protobuf), as a collector does.
 */

export type CapturedSignal = 'logs' | 'traces' | 'metrics' | 'other';
export type CapturedEncoding = 'json' | 'protobuf' | 'other';

export interface CapturedExport {
  /** 1-based, in arrival order. */
  seq: number;
  path: string;
  signal: CapturedSignal;
  encoding: CapturedEncoding;
  contentType: string;
  contentEncoding: string | null;
  headers: Record<string, string>;
  /** The Authorization header was `Bearer <token>`. */
  authorized: boolean;
  /** The body as received (still compressed when the exporter compressed it). */
  body: Buffer;
  /** The body decompressed. */
  payload: Buffer;
}

export interface OtlpCapture {
  readonly url: string;
  readonly exports: readonly CapturedExport[];
  /** Resolves once no export is being read (after a CLI exits: everything it sent is in). */
  idle(): Promise<void>;
  inFlight(): number;
  close(): Promise<void>;
}

const SIGNALS: Record<string, CapturedSignal> = { '/v1/logs': 'logs', '/v1/traces': 'traces', '/v1/metrics': 'metrics' };

function encodingOf(contentType: string): CapturedEncoding {
  if (/json/i.test(contentType)) return 'json';
  if (/protobuf/i.test(contentType)) return 'protobuf';
  return 'other';
}

export function decompress(body: Buffer, contentEncoding: string | null): Buffer {
  try {
    if (contentEncoding === 'gzip') return gunzipSync(body);
    if (contentEncoding === 'deflate') return inflateSync(body);
  } catch {
    // Kept as received: a test reading it will say it does not decode.
  }
  return body;
}

export async function startOtlpCapture(options: { token: string }): Promise<OtlpCapture> {
  const exports: CapturedExport[] = [];
  const server = await listenLoopback((req, res, body) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const contentType = req.headers['content-type'] ?? '';
    const contentEncoding = req.headers['content-encoding'] ?? null;
    const encoding = encodingOf(contentType);
    exports.push({
      seq: exports.length + 1,
      path,
      signal: SIGNALS[path] ?? 'other',
      encoding,
      contentType,
      contentEncoding,
      headers: redactedHeaders(req.headers),
      authorized: req.headers.authorization === `Bearer ${options.token}`,
      body,
      payload: decompress(body, contentEncoding),
    });
    if (encoding === 'protobuf') {
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    }
  });
  return { url: server.url, exports, idle: () => server.idle(), inFlight: () => server.inFlight(), close: () => server.close() };
}
