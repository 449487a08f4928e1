import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionsCheckingInterval, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../core/base/http-limits.js';
import { HivewatchError } from '../core/base/errors/hivewatch-error.js';
import { API_ERROR_STATUS, API_ERROR_TAXONOMY, type ApiErrorCode } from '../core/common/api-errors.js';
import { toWireError } from '../core/service/wire-error.js';
import type { HivewatchService } from '../core/service/service.js';
import { matchRoute } from './routes.js';
import { checkBearer, expireCookies, isAllowedFetchSite, isAllowedHost, isAllowedOrigin, legacyTokenCookies, LOOPBACK, newToken } from './security.js';
import { SECURITY_HEADERS } from '../shell-common/content-policy.js';
import { openStream, type OpenStream } from './sse.js';
import { serveStatic } from '../shell-common/static-files.js';
import { answerBatch } from './batch.js';

/**
 * The browser shell's HTTP server (node:http only). Order of checks on every request:
 * Host (403) → Origin and fetch metadata (403) → for /api/: the bearer token (401; no cookie is
 * ever a credential, and a leftover access cookie of an older version is expired) → route (404 /
 * 405) → body (400: larger than 1 MiB, not JSON) → input schema (400) → the service (its
 * 400 / 404 / 409). Every failure answers `{error: {code, message}}` and the server keeps going.
 */

export const MAX_BODY_BYTES = 1024 * 1024;
/** Past this a request body is no longer drained to answer politely: the connection is cut. */
const MAX_DRAIN_BYTES = 16 * 1024 * 1024;
/**
 * Slow clients: the request line and headers must arrive within HEADERS_TIMEOUT_MS, the whole
 * request (headers and body) within REQUEST_TIMEOUT_MS, else Node answers 408 and closes the
 * socket (core/base/http-limits.ts: the OTLP receiver applies the same). The body limit is 1 MiB on
 * loopback, so both are generous.
 */

export interface HttpShellOptions {
  service: HivewatchService;
  /** 0 (default): a free port. */
  port?: number;
  /** Default: a fresh random token (the server's main passes the database's own). */
  token?: string;
  /** The built renderer (renderer-dist/); null or absent: the built-in page. */
  staticDir?: string | null;
  heartbeatMs?: number;
  maxBodyBytes?: number;
  /** Where unexpected (500) errors and client aborts are reported. Default console.error. */
  log?: (message: string) => void;
  /** Default HEADERS_TIMEOUT_MS; tests inject a small one. */
  headersTimeoutMs?: number;
  /** Default REQUEST_TIMEOUT_MS (never below the headers timeout). */
  requestTimeoutMs?: number;
}

export interface HttpShell {
  readonly server: Server;
  readonly port: number;
  readonly token: string;
  /** http://127.0.0.1:<port>/ */
  readonly origin: string;
  /** The URL to open: origin with `?token=`. */
  readonly url: string;
  close(): Promise<void>;
}

/** A body the API refuses (`invalid_json`, `payload_too_large`), or a peer gone mid-body (`aborted`). */
class BodyError extends HivewatchError {
  constructor(
    readonly apiCode: 'invalid_json' | 'payload_too_large' | typeof ABORTED,
    message: string,
  ) {
    super(apiCode === ABORTED ? 'SYSTEM_CLIENT_ABORTED' : API_ERROR_TAXONOMY[apiCode], { message });
    this.name = 'BodyError';
  }
}

/** What bodyOf says when the request was already answered or dropped. */
const NO_BODY = Symbol('no body');

/** Several reads in one request (server/batch.ts). */
const BATCH_PATH = '/api/batch';

/** The peer went away mid-body (or the body passed the drain limit and was cut): nobody to answer. */
const ABORTED = 'aborted';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `Server-Timing: app;dur=<ms>`: the server's own time on an answer, from the request's body read
 * (a slow client's upload is not the server's) to the answer encoded. The window's Resource Timing reads it (same origin), so a screen's
 * open splits into server, transfer and page (bench/ui/open-split.ts); the format is the W3C
 * Server Timing one (docs/benches.md cites it).
 */
function serverTiming(startedAt: number | undefined): Record<string, string> {
  return startedAt === undefined ? {} : { 'server-timing': `app;dur=${(performance.now() - startedAt).toFixed(1)}` };
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}, startedAt?: number): void {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, {
    ...serverTiming(startedAt),
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': payload.length,
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(payload);
}

function sendError(res: ServerResponse, code: ApiErrorCode, message: string, extra: Record<string, string> = {}): void {
  sendJson(res, API_ERROR_STATUS[code], { error: { code, message } }, extra);
}

/** Reads a JSON body of at most `limit` bytes; an empty body is `undefined`. */
function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    let ended = false;
    let cut = false;
    const aborted = (): void =>
      reject(
        new BodyError(
          ABORTED,
          cut
            ? `cut off the request after ${size} bytes: its body passed ${MAX_DRAIN_BYTES} bytes`
            : `client aborted the request after ${size} bytes of its body`,
        ),
      );
    req.on('close', () => {
      if (!ended) aborted();
    });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) {
        cut = true;
        req.destroy();
        return;
      }
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    // A client that closes its socket mid-upload surfaces here as ECONNRESET "aborted": not our failure.
    req.on('error', aborted);
    req.on('end', () => {
      ended = true;
      if (tooLarge) return reject(new BodyError('payload_too_large', `request body is larger than ${limit} bytes (1 MiB)`));
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(new BodyError('invalid_json', `request body is not valid JSON: ${(error as Error).message}`));
      }
    });
  });
}

const CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
};

/** Host, then Origin and fetch metadata: a request from anywhere but this server's page is answered 403. Whether it was. */
function refusedSource(req: IncomingMessage, res: ServerResponse, port: number): boolean {
  if (!isAllowedHost(header(req, 'host'), port)) {
    sendError(res, 'forbidden_host', `Host "${header(req, 'host') ?? ''}" is not allowed; use http://${LOOPBACK}:${port}/`);
    return true;
  }
  const origin = header(req, 'origin');
  if (!isAllowedOrigin(origin, port) || !isAllowedFetchSite(header(req, 'sec-fetch-site'))) {
    sendError(res, 'forbidden_origin', `Origin "${origin ?? header(req, 'sec-fetch-site') ?? ''}" is not allowed`);
    return true;
  }
  return false;
}

/** An /api/ request without the bearer token is answered 401. Whether it was. */
function refusedToken(req: IncomingMessage, res: ServerResponse, token: string): boolean {
  // Browsers that ran an older Hivewatch still send its port-named access cookie (and to every
  // port): make them forget it. It opens nothing here.
  const leftovers = legacyTokenCookies(header(req, 'cookie'));
  if (leftovers.length > 0) res.setHeader('set-cookie', expireCookies(leftovers));
  const auth = checkBearer(header(req, 'authorization'), token);
  if (auth === 'ok') return false;
  sendError(
    res,
    'unauthorized',
    auth === 'missing'
      ? 'missing token: send Authorization: Bearer <token> (the token is in the URL Hivewatch printed)'
      : 'wrong token: this server uses another token (each database keeps its own: open the URL `hivewatch serve` printed)',
    { 'www-authenticate': 'Bearer' },
  );
  return true;
}

/** The server with the slow-client limits (core/base/http-limits.ts); one bad connection never takes it down. */
function limitedServer(options: HttpShellOptions, onRequest: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
      // Node checks the two timeouts on this period (default 30 s): keep it below them.
      connectionsCheckingInterval: connectionsCheckingInterval(headersTimeout),
    },
    onRequest,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });
  return server;
}

/** The request's JSON body, or NO_BODY once the request was answered (a refused body) or dropped (its peer gone). */
async function bodyOf(req: IncomingMessage, res: ServerResponse, maxBody: number, log: (message: string) => void): Promise<unknown> {
  try {
    return await readJson(req, maxBody);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    if (error.apiCode !== ABORTED) sendError(res, error.apiCode, error.message);
    else {
      log(`hivewatch: ${req.method ?? ''} ${req.url ?? ''}: ${error.message}`);
      res.destroy();
    }
    return NO_BODY;
  }
}

interface JsonContext {
  service: HivewatchService;
  maxBody: number;
  log: (message: string) => void;
}

/** An authorized /api/ request other than the stream: a batch of reads, or one method's route. */
async function answerJson(req: IncomingMessage, res: ServerResponse, url: URL, { service, maxBody, log }: JsonContext): Promise<void> {
  const method = req.method ?? 'GET';
  if (url.pathname === BATCH_PATH) {
    if (method !== 'POST') return sendError(res, 'method_not_allowed', `${method} ${BATCH_PATH} is not allowed; use POST`, { allow: 'POST' });
    const batch = await bodyOf(req, res, maxBody, log);
    if (batch === NO_BODY) return;
    const startedAt = performance.now();
    return sendJson(res, 200, await answerBatch(service, batch, log), {}, startedAt);
  }
  const match = matchRoute(method, url.pathname);
  if (match.kind === 'none') return sendError(res, 'not_found', `no route ${method} ${url.pathname}`);
  if (match.kind === 'method') {
    return sendError(res, 'method_not_allowed', `${method} ${url.pathname} is not allowed; use ${match.allow.join(', ')}`, {
      allow: match.allow.join(', '),
    });
  }
  let body: unknown;
  if (match.route.body) {
    body = await bodyOf(req, res, maxBody, log);
    if (body === NO_BODY) return;
  } else {
    req.resume();
  }
  const startedAt = performance.now();
  const result = await match.route.handle(service, { params: match.params, query: url.searchParams, body });
  sendJson(res, result.status, result.body, {}, startedAt);
}

export async function startHttpShell(options: HttpShellOptions): Promise<HttpShell> {
  const { service } = options;
  const token = options.token ?? newToken();
  // The window calls the stream stalled after 5 s without a byte (renderer/api/http-client.ts):
  // a heartbeat every 2 s keeps a quiet but live stream well inside that.
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const log = options.log ?? ((message: string) => console.error(message));
  const streams = new Set<OpenStream>();
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (refusedSource(req, res, port)) return;
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}:${port}`);
    const method = req.method ?? 'GET';
    if (!(url.pathname === '/api' || url.pathname.startsWith('/api/'))) {
      if (method !== 'GET' && method !== 'HEAD') return sendError(res, 'method_not_allowed', `${method} is not allowed here`, { allow: 'GET, HEAD' });
      return serveStatic(req, res, url.pathname, options.staticDir ?? null);
    }

    if (refusedToken(req, res, token)) return;

    if (url.pathname === '/api/stream') {
      if (method !== 'GET') return sendError(res, 'method_not_allowed', `${method} /api/stream is not allowed`, { allow: 'GET' });
      const stream = openStream(req, res, service, url.searchParams, { heartbeatMs });
      streams.add(stream);
      res.on('close', () => streams.delete(stream));
      return;
    }

    return answerJson(req, res, url, { service, maxBody, log });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      const wire = toWireError(error);
      // 503 is "not now" (the database away, its disk full), answered to every request until it
      // passes: the store says so once per outage, and a stack per request would bury that line.
      if (wire.status >= 500 && wire.status !== 503) {
        log(`hivewatch: ${req.method ?? ''} ${req.url ?? ''}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, wire.status, wire.body);
    });
  };
  const server = limitedServer(options, onRequest);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const originUrl = `http://${LOOPBACK}:${port}`;

  return {
    server,
    port,
    token,
    origin: originUrl,
    url: `${originUrl}/?token=${encodeURIComponent(token)}`,
    close: async () => {
      for (const stream of [...streams]) stream.close();
      streams.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
