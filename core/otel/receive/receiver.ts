import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';
import { connectionsCheckingInterval, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../base/http-limits.js';
import type { HivewatchStore } from '../../store/contract.js';
import { decodeOtlp, OtlpDecodeError, type OtlpEncoding, type OtlpSignal, type TelemetryRecord } from './decode.js';
import { readMetricPoints } from '../metrics/codex.js';
import { decodeMetrics } from '../metrics/decode.js';
import { OtelIngester, type IngesterOptions } from './ingest.js';
import { IngestBusy, IngestQueue, type IngestQueueOptions } from './ingest-queue.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../../base/errors/taxonomy.js';

/**
 * The loopback OTLP/HTTP receiver (`/v1/logs`, `/v1/traces`, `/v1/metrics`; JSON and protobuf; gzip), started by
 * `serve` and by the Electron main process (docs/otel.md "Receiver"). It answers 401 without the
 * database's ingest token, 400 with a reason for a payload it cannot take (nothing is written),
 * 200 once the payload is committed, 429 / 503 with Retry-After when it cannot keep up
 * (ingest-queue.ts): every request is answered within about a second.
 */

/** The OTLP/HTTP default port (the OpenTelemetry spec's), so exporters' defaults nearly fit. */
export const DEFAULT_OTEL_PORT = 4318;
/** A request body larger than this, before or after gzip, is refused (400). */
const MAX_OTLP_BODY_BYTES = 8 * 1024 * 1024;
/**
 * Open connections at most: past it a new connection is closed at once, so a
 * burst of slow clients cannot hold the process's memory; exporters reconnect and retry. An
 * exporter keeps one or a few connections; this leaves room for hundreds of agents.
 */
export const MAX_OTLP_CONNECTIONS = 256;
/**
 * How often the receiver looks for sessions to end (quiet ones, linked ones whose attempt ended):
 * a session's final status comes at most this long after its quiet period, and a linked one
 * this long after LINKED_GRACE_MS. The look is one indexed query.
 */
const QUIET_CHECK_EVERY_MS = 5_000;

/** The database secret that holds the ingest token. */
const OTEL_TOKEN_SECRET = 'otel.token';

const newOtelToken = (): string => randomBytes(24).toString('base64url');

/** The database's ingest token (made once, then the same for every process and restart). */
export function otelToken(store: HivewatchStore): Promise<string> {
  return store.secret(OTEL_TOKEN_SECRET, newOtelToken);
}

export interface OtlpReceiverOptions extends IngesterOptions {
  store: HivewatchStore;
  /** Default DEFAULT_OTEL_PORT; 0 for a free one. */
  port?: number;
  /** Default the database's `otel.token`. */
  token?: string;
  maxBodyBytes?: number;
  /** How often quiet sessions are ended (default QUIET_CHECK_EVERY_MS); 0: never on a timer (tests call sweep). */
  sweepEveryMs?: number;
  /** Where a failed sweep is reported (default stderr). */
  log?: (line: string) => void;
  /** The ingest queue's bounds and answer deadline (defaults in ingest-queue.ts); `beforeWrite` is for tests. */
  queue?: IngestQueueOptions;
  /** Default HEADERS_TIMEOUT_MS (core/base/http-limits.ts); tests inject a small one. */
  headersTimeoutMs?: number;
  /** Default REQUEST_TIMEOUT_MS (never below the headers timeout). */
  requestTimeoutMs?: number;
  /** Default MAX_OTLP_CONNECTIONS. */
  maxConnections?: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` (the OTLP base endpoint: exporters append /v1/logs). */
  endpoint: string;
  port: number;
  token: string;
  ingester: OtelIngester;
  /** What waits for its transaction now. */
  readonly queued: { records: number; bytes: number };
  /** Connections closed at once because MAX_OTLP_CONNECTIONS were open. */
  readonly dropped: number;
  /** Metric data points accepted: journaled, read and not journaled, dropped (metrics/codex.ts). */
  readonly metricPoints: { journaled: number; read: number; dropped: number };
  close(): Promise<void>;
}

const ROUTES: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/traces': 'traces', '/v1/metrics': 'metrics' };

/**
 * The statuses OTLP/HTTP answers a refused request with, each as its code in the one taxonomy:
 * the receiver's own edge, as the specification fixes these statuses (413, not the API's 400).
 */
const REFUSAL_CODES = {
  400: 'USER_INVALID_PAYLOAD',
  401: 'POLICY_UNAUTHORIZED',
  404: 'USER_ENDPOINT_NOT_FOUND',
  405: 'USER_METHOD_NOT_ALLOWED',
  408: 'USER_REQUEST_TIMEOUT',
  413: 'USER_PAYLOAD_TOO_LARGE',
  415: 'USER_UNSUPPORTED_MEDIA_TYPE',
} as const satisfies Record<number, ErrorCode>;

class Refused extends HivewatchError {
  constructor(
    readonly status: keyof typeof REFUSAL_CODES,
    message: string,
  ) {
    super(REFUSAL_CODES[status], { message });
    this.name = 'Refused';
  }
}

function encodingOf(contentType: string | undefined): OtlpEncoding {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  throw new Refused(415, `unsupported Content-Type "${contentType ?? ''}": send application/json or application/x-protobuf`);
}

/**
 * A body over the limit is answered 413 once it has all arrived (read and dropped, up to
 * DRAINED_LIMITS times the limit): an exporter writes its whole batch before it reads the answer,
 * and a connection cut while it writes fails its write with EPIPE and loses the answer. Past that
 * bound (or declared past it) the answer goes at once and the connection is cut.
 */
const DRAINED_LIMITS = 4;

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    let refusal = Number.isFinite(declared) && declared > limit ? new Refused(413, `payload too large: ${declared} bytes (the limit is ${limit})`) : null;
    if (refusal !== null && declared > DRAINED_LIMITS * limit) {
      reject(refusal);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // A client that goes away (or that Node cuts off at the request timeout) settles the read too.
    req.on('close', () => {
      if (!req.complete) reject(new Refused(408, `the request body did not arrive (${size} bytes came)`));
    });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refusal ??= new Refused(413, `payload too large: over ${limit} bytes (the limit)`);
      if (refusal === null) chunks.push(chunk);
      else if (size > DRAINED_LIMITS * limit) reject(refusal);
    });
    req.on('end', () => (refusal === null ? resolve(Buffer.concat(chunks)) : reject(refusal)));
    req.on('error', reject);
  });
}

function decompress(body: Buffer, contentEncoding: string | undefined, limit: number): Buffer {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  try {
    if (encoding === 'gzip') return gunzipSync(body, { maxOutputLength: limit });
    if (encoding === 'deflate') return inflateSync(body, { maxOutputLength: limit });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || (error as Error).message.includes('maxOutputLength')) {
      throw new Refused(413, `payload too large once decompressed: over ${limit} bytes (the limit)`);
    }
    throw new Refused(400, `the body is not valid ${encoding}: ${(error as Error).message}`);
  }
  if (encoding === 'identity' || encoding === '') return body;
  throw new Refused(415, `unsupported Content-Encoding "${encoding}": send gzip or none`);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1] as string);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function answer(res: ServerResponse, status: number, encoding: OtlpEncoding, message: string | null): void {
  if (encoding === 'protobuf' && status === 200) {
    // An empty Export*ServiceResponse: every record accepted.
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    return;
  }
  const body = JSON.stringify(message === null ? {} : { error: message });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/**
 * The HTTP server with the HTTP shell's limits, for every request whatever its token: a client
 * that trickles its headers or its body is answered 408 and closed, and past `maxConnections` a
 * new connection is closed at once. One bad connection never takes it down.
 */
function limitedServer(
  options: OtlpReceiverOptions,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): { server: Server; dropped: () => number } {
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server: Server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: connectionsCheckingInterval(headersTimeout),
    },
    onRequest,
  );
  server.maxConnections = options.maxConnections ?? MAX_OTLP_CONNECTIONS;
  let dropped = 0;
  server.on('drop', () => (dropped += 1));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });
  return { server, dropped: () => dropped };
}

/** A body's records; for metrics, the points Hivewatch journals, the others counted into `counts` (by `count`, once it is answered). */
function decodedBody(
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  body: Buffer,
  counts: { journaled: number; read: number; dropped: number },
): { records: TelemetryRecord[]; count: () => void } {
  if (signal !== 'metrics') return { records: decodeOtlp(signal, encoding, body), count: () => undefined };
  const reading = readMetricPoints(decodeMetrics(encoding, body));
  const count = (): void => {
    counts.journaled += reading.records.length;
    counts.read += reading.read;
    counts.dropped += reading.dropped;
  };
  return { records: reading.records, count };
}

export async function startOtlpReceiver(options: OtlpReceiverOptions): Promise<OtlpReceiver> {
  const token = options.token ?? (await otelToken(options.store));
  const limit = options.maxBodyBytes ?? MAX_OTLP_BODY_BYTES;
  const ingester = new OtelIngester(options.store, options);
  const queue = new IngestQueue(ingester, options.queue);
  const metricPoints = { journaled: 0, read: 0, dropped: 0 };
  const recordsOf = (signal: OtlpSignal, encoding: OtlpEncoding, body: Buffer) => decodedBody(signal, encoding, body, metricPoints);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let encoding: OtlpEncoding = 'json';
    try {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const signal = ROUTES[path];
      if (signal === undefined) throw new Refused(404, `no such OTLP endpoint ${path}: use /v1/logs, /v1/traces or /v1/metrics`);
      if (req.method !== 'POST') throw new Refused(405, `${req.method ?? ''} ${path}: OTLP/HTTP takes POST`);
      if (!bearerMatches(req.headers.authorization, token)) {
        throw new Refused(401, 'missing or wrong ingest token: send Authorization: Bearer <token> (see `hivewatch otel-env`)');
      }
      encoding = encodingOf(req.headers['content-type']);
      const raw = await readBody(req, limit);
      const body = decompress(raw, req.headers['content-encoding'], limit);
      const { records, count } = recordsOf(signal, encoding, body);
      const digest = createHash('sha256').update(signal).update('\n').update(body).digest('hex');
      // A metrics export of nothing Hivewatch journals (most of them) needs no transaction.
      if (records.length > 0 || signal !== 'metrics') await queue.enqueue(records, body.length, digest);
      count();
      answer(res, 200, encoding, null);
    } catch (error) {
      if (error instanceof IngestBusy) res.setHeader('retry-after', String(error.retryAfterSeconds));
      if (error instanceof Refused || error instanceof IngestBusy) answer(res, error.status, encoding, error.message);
      else if (error instanceof OtlpDecodeError) answer(res, 400, encoding, `malformed OTLP payload: ${error.message}`);
      else answer(res, 500, encoding, `could not ingest the payload: ${(error as Error).message}`);
      if (!req.complete) res.on('finish', () => req.destroy());
    }
  };

  const { server, dropped } = limitedServer(options, (req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const port = options.port ?? DEFAULT_OTEL_PORT;
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `the OTLP receiver cannot listen on 127.0.0.1:${port}: the port is taken (another collector?); choose another with --otel-port or HIVEWATCH_OTEL_PORT`,
            )
          : error,
      );
    };
    server.once('error', onError);
    server.listen(options.port ?? DEFAULT_OTEL_PORT, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const sweepEveryMs = options.sweepEveryMs ?? QUIET_CHECK_EVERY_MS;
  const log = options.log ?? ((line: string) => console.error(line));
  const sweep = (final = false): Promise<void> =>
    ingester.sweep({ final }).then(
      () => undefined,
      (error: unknown) => log(`otel: ending quiet sessions failed: ${(error as Error).message}`),
    );
  const timer = sweepEveryMs > 0 ? setInterval(() => void sweep(), sweepEveryMs) : null;
  timer?.unref();
  // At once too: sessions left open when the last receiver stopped (their attempts ended meanwhile) end now.
  if (timer) void sweep();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    token,
    ingester,
    get queued() {
      return queue.queued;
    },
    get dropped() {
      return dropped();
    },
    get metricPoints() {
      return { ...metricPoints };
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Nothing more can arrive: sessions whose attempt ended end with it now, not at the next start's quiet period.
      if (timer) await sweep(true);
    },
  };
}
