import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell, type HttpShell } from './http.js';

/** Slow and vanishing clients, over real sockets on loopback. */

let store: HivewatchStore | undefined;
let service: HivewatchService | undefined;
let shell: HttpShell | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

async function start(options: { headersTimeoutMs?: number; log?: (line: string) => void } = {}): Promise<HttpShell> {
  store = await openStore({ path: ':memory:' });
  service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: null, clock: 'virtual' });
  shell = await startHttpShell({ service, ...options, log: options.log ?? (() => undefined) });
  return shell;
}

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await shell?.close();
  await service?.close();
  await store?.close();
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Resolves with everything the server sent once it closes the connection. */
function closed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('close', () => resolve(text));
  });
}

describe('slow clients', () => {
  it('a client that trickles header lines forever is answered 408 and closed', async () => {
    const { port } = await start({ headersTimeoutMs: 200 });
    const socket = await open(port);
    const done = closed(socket);
    socket.write(`GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    let n = 0;
    // One header line at a time, never the blank line that ends the headers (the 5 s of the
    // report, scaled to the injected timeout).
    timers.push(
      setInterval(() => {
        if (!socket.destroyed) socket.write(`x-slow-${n++}: 1\r\n`);
      }, 50),
    );
    expect(await done).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('a client aborting an oversized upload is one log line naming a client abort, not an error with a stack', async () => {
    const lines: string[] = [];
    let logged: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (logged = resolve));
    const http = await start({
      log: (line) => {
        lines.push(line);
        logged();
      },
    });
    const socket = await open(http.port);
    socket.write(
      `POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nAuthorization: Bearer ${http.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`,
    );
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(2 * 1024 * 1024, 0x20), () => resolve()));
    socket.destroy();
    await first;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hivewatch: POST \/api\/runs: client aborted the request after \d+ bytes of its body$/);

    // And the server still answers.
    const ok = await fetch(`${http.origin}/api/runs`, { headers: { authorization: `Bearer ${http.token}` } });
    expect(ok.status).toBe(200);
  });
});
