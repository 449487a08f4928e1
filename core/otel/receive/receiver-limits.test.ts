import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { startOtlpReceiver, type OtlpReceiver, type OtlpReceiverOptions } from './receiver.js';
import { fixture, UNHURRIED_QUEUE } from '../testing.js';

/**
 * The receiver holds no connection longer than the HTTP shell's limits, with or
 * without the ingest token, and no more connections than its cap. Real sockets on loopback; the
 * limits are injected small, and the tests wait for the server to close, never for time.
 */

let store: HivewatchStore | undefined;
let receiver: OtlpReceiver | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

async function start(options: Partial<OtlpReceiverOptions>): Promise<OtlpReceiver> {
  store = await openStore({ path: ':memory:' });
  receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue: UNHURRIED_QUEUE, ...options });
  return receiver;
}

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await receiver?.close();
  await store?.close();
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Resolves with everything the server sent once the connection is closed. */
function closed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('close', () => resolve(text));
  });
}

/** Writes `chunk` again and again until the socket closes (a client that never finishes). */
function trickle(socket: Socket, chunk: () => string): void {
  timers.push(
    setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(chunk());
    }, 20),
  );
}

const head = (port: number, token: string, length: number): string =>
  `POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('OTLP receiver limits', () => {
  it('answers 408 and closes a client with the token that trickles its body', async () => {
    const otlp = await start({ headersTimeoutMs: 100, requestTimeoutMs: 300 });
    const socket = await open(otlp.port);
    const done = closed(socket);
    socket.write(head(otlp.port, otlp.token, 1_000_000));
    trickle(socket, () => ' ');
    expect(await done).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect((await store!.stats()).events).toBe(0);
  });

  it('answers 408 and closes a client with the token that trickles its headers', async () => {
    const otlp = await start({ headersTimeoutMs: 100, requestTimeoutMs: 300 });
    const socket = await open(otlp.port);
    const done = closed(socket);
    socket.write(`POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1:${otlp.port}\r\nAuthorization: Bearer ${otlp.token}\r\n`);
    let n = 0;
    trickle(socket, () => `x-slow-${n++}: 1\r\n`);
    expect(await done).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('closes connections past its cap at once, and takes payloads again once they are gone', async () => {
    const otlp = await start({ maxConnections: 2 });
    const held = [await open(otlp.port), await open(otlp.port)];
    // Both are in the middle of a request (the server has them, and counts them).
    for (const socket of held) socket.write(head(otlp.port, otlp.token, 10));
    const third = await open(otlp.port);
    expect(await closed(third)).toBe('');
    expect(otlp.dropped).toBe(1);

    const gone = held.map((socket) => closed(socket));
    for (const socket of held) socket.destroy();
    await Promise.all(gone);
    let status = 0;
    // The server sees the two closes after the client does: a refused attempt is retried, as exporters do.
    while (status !== 200) {
      const response = await fetch(`${otlp.endpoint}/v1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${otlp.token}`, 'content-type': 'application/json' },
        body: new Uint8Array(fixture('claude-code-logs', 'json')),
      }).catch(() => null);
      status = response?.status ?? 0;
      await response?.arrayBuffer();
    }
    expect((await store!.stats()).runs).toBe(1);
  });
});
