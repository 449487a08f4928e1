import { createServer } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A forward proxy on 127.0.0.1 that lets nothing through and writes down what was tried. The
 * CLIs run with HTTPS_PROXY / HTTP_PROXY / ALL_PROXY pointing here and NO_PROXY covering
 * 127.0.0.1 and localhost, so their calls to the stubs go direct while any other destination
 * (an update check, a vendor's telemetry, a plugin catalog) arrives here as `CONNECT host:443`
 * or an absolute URL, is refused with 403, and is listed in `attempts`. A suite asserts the list
 * is empty: the harness sends no traffic anywhere but loopback.
 */

export interface EgressGuard {
  readonly url: string;
  /** `host:port` of each CONNECT, or the absolute URL of each plain request, in order. */
  readonly attempts: readonly string[];
  /** The proxy variables a CLI's environment gets. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startEgressGuard(): Promise<EgressGuard> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    attempts.push(req.url ?? '');
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('hivewatch egress guard: only 127.0.0.1 is reachable from this test\n');
  });
  server.on('connect', (req, socket: Socket) => {
    attempts.push(req.url ?? '');
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const noProxy = '127.0.0.1,localhost,::1';
  return {
    url,
    attempts,
    env: () => ({
      HTTPS_PROXY: url,
      HTTP_PROXY: url,
      ALL_PROXY: url,
      https_proxy: url,
      http_proxy: url,
      all_proxy: url,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
