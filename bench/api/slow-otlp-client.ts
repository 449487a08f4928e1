import { connect, type Socket } from 'node:net';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';

/**
 * A burst of slow OTLP clients for bench/api/serve-load.bench.ts (the load probe): `count`
 * connections to the receiver, each with the valid ingest token, announcing a 1 MB body and then
 * sending one byte of it every `everyMs`. Waits until the server has closed every one (or
 * `giveUpMs` passed) and prints one JSON line: how many were answered 408, closed without an
 * answer (refused past the receiver's connection cap), and how long the last one was held.
 *
 * Usage: node slow-otlp-client.js <host> <port> <token> <count> <everyMs> <giveUpMs>
 */

const { host, port, token, count, everyMs, giveUpMs } = clientArgsOrExit('slow-otlp-client.js', '<host> <port> <token> <count> <everyMs> <giveUpMs>', () => {
  const args = clientArgs(process.argv.slice(2), ['host', 'port', 'token', 'count', 'everyMs', 'giveUpMs']);
  return {
    ...args,
    port: wholeNumber(args.port, 'port', 1),
    count: wholeNumber(args.count, 'count', 1),
    everyMs: wholeNumber(args.everyMs, 'everyMs', 1),
    giveUpMs: wholeNumber(args.giveUpMs, 'giveUpMs', 1),
  };
});

interface Held {
  socket: Socket;
  answer: string;
  closedAfterMs: number | null;
}

const started = Date.now();
const held: Held[] = [];
const head = `POST /v1/logs HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`;

function open(): Promise<void> {
  return new Promise((resolve) => {
    const entry: Held = { socket: connect({ host, port }), answer: '', closedAfterMs: null };
    held.push(entry);
    entry.socket.on('connect', () => {
      entry.socket.write(head);
      resolve();
    });
    entry.socket.on('data', (chunk: Buffer) => (entry.answer += chunk.toString('latin1')));
    entry.socket.on('error', () => resolve());
    entry.socket.on('close', () => {
      entry.closedAfterMs = Date.now() - started;
      resolve();
    });
  });
}

// Open them a few at a time (a burst, not a SYN flood the loopback backlog would drop).
for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: Math.min(50, count - i) }, open));
const opened = Date.now() - started;
const trickle = setInterval(() => {
  for (const entry of held) if (entry.closedAfterMs === null && entry.socket.writable) entry.socket.write(' ');
}, everyMs);
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (held.every((entry) => entry.closedAfterMs !== null) || Date.now() - started > giveUpMs) {
      clearInterval(check);
      resolve();
    }
  }, 100);
});
clearInterval(trickle);
const open408 = held.filter((entry) => entry.answer.startsWith('HTTP/1.1 408')).length;
const stillOpen = held.filter((entry) => entry.closedAfterMs === null).length;
const refused = held.filter((entry) => entry.closedAfterMs !== null && entry.answer === '').length;
const longest = Math.max(0, ...held.map((entry) => entry.closedAfterMs ?? Date.now() - started));
for (const entry of held) entry.socket.destroy();
process.stdout.write(`${JSON.stringify({ count, openedMs: opened, answered408: open408, refused, stillOpen, longestHeldMs: longest })}\n`);
