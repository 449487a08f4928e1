import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 (port 0: the system picks one) for the provider stubs and the OTLP
 * capture. It remembers its sockets so `close()` ends at once even while a CLI holds a request
 * open (the hang and stall scenarios), and it counts requests still being read so a caller can
 * wait until everything a CLI sent before exiting has been taken in.
 */

export interface Loopback {
  readonly url: string;
  readonly port: number;
  /** Resolves once no request is being read or answered (at once when none is). */
  idle(): Promise<void>;
  /** Requests being read or answered now. */
  inFlight(): number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** Headers whose values are secrets: kept in records as `<redacted>`. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie']);

export function redactedHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[key] = SECRET_HEADERS.has(key) ? redactSecret(text) : text;
  }
  return out;
}

/** `Bearer abc` → `Bearer <redacted>`; anything else → `<redacted>`. */
function redactSecret(value: string): string {
  const scheme = /^(Bearer|Basic)\s+/i.exec(value);
  return scheme ? `${scheme[1]} <redacted>` : '<redacted>';
}

export async function listenLoopback(handler: Handler): Promise<Loopback> {
  const sockets = new Set<Socket>();
  let busy = 0;
  let waiters: (() => void)[] = [];
  const settle = (): void => {
    busy -= 1;
    if (busy === 0) {
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve();
    }
  };
  const server: Server = createServer((req, res) => {
    busy += 1;
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        settle();
      }
    };
    // A request counts until it is answered or its client went away, whichever comes first.
    res.on('finish', finish);
    res.on('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', finish);
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that sends garbage must not take the stub down with it.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    idle: () => (busy === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    inFlight: () => busy,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
