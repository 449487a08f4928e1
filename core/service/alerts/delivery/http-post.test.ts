import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestReceiver } from '../testing.js';
import { ANSWER_BYTES, postWebhook } from './http-post.js';
import { StallingReceiver } from './testing.js';

/**
 * One webhook POST against real receivers on 127.0.0.1: the status of an answer whose body never
 * ends, after at most a few kilobytes, with the socket closed by us; a receiver that never answers
 * costs one deadline and its socket is closed too (none accumulate); headers that never end are
 * refused at Node's header limit; a request that cannot be made is an error, not a throw; a
 * Retry-After comes back with the answer's Date.
 */

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function stalling(kind: 'hang' | 'endless'): Promise<{ receiver: StallingReceiver; url: string }> {
  const receiver = new StallingReceiver(kind);
  const url = await receiver.start();
  closers.push(() => receiver.stop());
  return { receiver, url };
}

/** A server whose answer is a status line and then header lines without end. */
async function endlessHeaders(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write('HTTP/1.1 200 OK\r\n');
    const more = (): void => {
      while (!socket.destroyed && socket.write('x-filler: 0123456789abcdef0123456789abcdef\r\n'));
      if (!socket.destroyed) socket.once('drain', more);
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('postWebhook', () => {
  it('takes the status of an answer whose body never ends, reads a few kilobytes of it and closes the socket', async () => {
    const { receiver, url } = await stalling('endless');
    const result = await postWebhook(`${url}/hook`, JSON.stringify({ subject: 'run_1' }), {}, 60_000);
    expect(result).toEqual({ status: 200 });
    await vi.waitFor(() => expect(receiver.connectionOf('run_1')?.closed).toBe(true), { timeout: 10_000 });
    expect(receiver.open()).toBe(0);
    // What the receiver got into its socket before we closed it: our read of ANSWER_BYTES plus
    // what the two kernels' buffers held, never more than a few megabytes.
    expect(receiver.connectionOf('run_1')!.offered).toBeGreaterThan(ANSWER_BYTES);
    expect(receiver.connectionOf('run_1')!.offered).toBeLessThan(32 * 1_024 * 1_024);
  });

  it('gives up on a receiver that never answers at its deadline and closes each socket: none accumulate', async () => {
    const { receiver, url } = await stalling('hang');
    const results = await Promise.all(['run_1', 'run_2', 'run_3', 'run_4', 'run_5'].map((subject) => postWebhook(url, JSON.stringify({ subject }), {}, 150)));
    expect(results).toEqual(Array.from({ length: 5 }, () => ({ error: 'no answer within 150 ms' })));
    // Every request reached the receiver before the deadline ended it.
    expect(receiver.connections.map((c) => c.subject).sort()).toEqual(['run_1', 'run_2', 'run_3', 'run_4', 'run_5']);
    await vi.waitFor(() => expect(receiver.open()).toBe(0), { timeout: 10_000 });
    expect(receiver.connections.every((c) => c.closed)).toBe(true);
  });

  it('refuses an answer whose headers never end at the header limit', async () => {
    const url = await endlessHeaders();
    expect(await postWebhook(url, '{}', {}, 60_000)).toEqual({ error: 'connection failed (HPE_HEADER_OVERFLOW)' });
  });

  it('names a refused connection, never the URL', async () => {
    const { url } = await stalling('hang');
    const port = new URL(url).port;
    const receiverGone = closers.pop()!;
    await receiverGone();
    const result = await postWebhook(`http://127.0.0.1:${port}/services/T0/B0/sekrit`, '{}', {}, 5_000);
    expect(result).toEqual({ error: 'connection failed (ECONNREFUSED)' });
  });

  it('answers a request Node refuses, a URL that is not one and a scheme it does not post to with an error, not a throw', async () => {
    const { url } = await stalling('hang');
    expect(await postWebhook(url, '{}', { 'x-bad': 'a\nb' }, 5_000)).toEqual({ error: 'the request could not be made (ERR_INVALID_CHAR)' });
    expect(await postWebhook('http://ops:%E0%A4%A@127.0.0.1/', '{}', {}, 5_000)).toEqual({ error: 'the webhook URL is not a valid URL' });
    expect(await postWebhook('ftp://127.0.0.1/hook', '{}', {}, 5_000)).toEqual({ error: 'the webhook URL is not http or https (ftp:)' });
  });

  it("returns Retry-After and the answer's Date with a 429, and neither with an answer that does not ask", async () => {
    const receiver = new TestReceiver();
    const url = await receiver.start();
    closers.push(() => receiver.stop());
    receiver.answers.push({ status: 429, headers: { 'retry-after': '30', date: 'Thu, 26 Nov 2026 14:05:00 GMT' } }, 500);
    expect(await postWebhook(url, '{}', {}, 5_000)).toEqual({ status: 429, retryAfter: '30', date: 'Thu, 26 Nov 2026 14:05:00 GMT' });
    expect(await postWebhook(url, '{}', {}, 5_000)).toEqual({ status: 500 });
    expect(receiver.requests.map((r) => [r.headers['content-type'], r.headers.connection])).toEqual([
      ['application/json', 'close'],
      ['application/json', 'close'],
    ]);
  });
});
