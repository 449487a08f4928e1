import { afterEach, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../core/service/api.js';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore } from '../core/store/index.js';
import { createHttpClient } from '../renderer/api/http-client.js';
import { startHttpShell, type HttpShell } from './http.js';

/**
 * The renderer's HTTP client against a real server: its live subscription survives a dropped
 * connection (reconnect with Last-Event-ID, no gap, no duplicate) and a restarted server (reset).
 */

describe('HTTP client live subscription', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const serve = async (options: { port?: number; token?: string } = {}): Promise<{ shell: HttpShell; service: HivewatchService }> => {
    const store = await openStore({ path: ':memory:' });
    // The alerts' timer never ticks: a pass comes only after a commit that can alert.
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual', alerts: { scheduler: () => () => undefined } });
    const shell = await startHttpShell({ service, staticDir: null, ...options });
    cleanups.push(
      () => store.close(),
      () => service.close(),
      () => shell.close(),
    );
    return { shell, service };
  };

  const runToEnd = async (service: HivewatchService, flow = 'examples/01-happy-path.prose'): Promise<string> => {
    const { runId } = await service.startRun({ flow });
    await service.whenFinished(runId);
    return runId;
  };

  it('reconnects after a dropped stream with Last-Event-ID: no gap, no duplicate', async () => {
    const { shell, service } = await serve();
    const streamHeaders: (string | null)[] = [];
    let cutAfter = 4;
    // The first stream is cut after a few events, as a flaky network would.
    const flakyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith('/api/stream')) return response;
      streamHeaders.push(new Headers(init?.headers).get('last-event-id'));
      if (streamHeaders.length > 1) return response;
      let seen = 0;
      const reader = (response.body as NonNullable<typeof response.body>).getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          seen += (new TextDecoder().decode(value).match(/event: hw/g) ?? []).length;
          if (seen >= cutAfter) {
            cutAfter = Infinity;
            await reader.cancel();
            controller.error(new Error('connection reset'));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = createHttpClient({ baseUrl: shell.origin, token: shell.token, fetch: flakyFetch, reconnectDelayMs: 1 });
    cleanups.push(() => client.close());

    const received: LiveEvent[] = [];
    let readies = 0;
    let resets = 0;
    let disconnects = 0;
    let firstReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (firstReady = resolve));
    let waiting: { runId: string; resolve: () => void } | null = null;
    client.subscribe(
      (batch) => {
        received.push(...batch);
        if (waiting && batch.some((e) => e.event.runId === waiting?.runId && e.event.type === 'runCompleted')) waiting.resolve();
      },
      { onReady: () => (readies++, firstReady()), onReset: () => resets++, onDisconnect: () => disconnects++ },
    );
    await ready;
    const runA = await runToEnd(service);
    const runB = await runToEnd(service);
    await new Promise<void>((resolve) => {
      if (received.some((e) => e.event.runId === runB && e.event.type === 'runCompleted')) resolve();
      else waiting = { runId: runB, resolve };
    });

    expect(streamHeaders).toHaveLength(2);
    expect(streamHeaders[0]).toBeNull();
    expect(streamHeaders[1]).toMatch(new RegExp(`^${service.instance}\\.\\d+$`));
    expect(readies).toBe(2);
    expect(resets).toBe(0);
    expect(disconnects).toBe(1);
    const ids = received.map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const total = (await service.getEvents({ runId: runA })).length + (await service.getEvents({ runId: runB })).length;
    expect(received).toHaveLength(total);
  });

  it('tells the window when a desktop alert was stored, without moving the stream position', async () => {
    const { shell, service } = await serve();
    const client = createHttpClient({ baseUrl: shell.origin, token: shell.token });
    cleanups.push(() => client.close());
    await client.addAlertRule({ when: 'run-failed', desktop: true, throttle: '0' });
    const received: LiveEvent[] = [];
    let firstReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (firstReady = resolve));
    let toldNow: () => void = () => undefined;
    const told = new Promise<void>((resolve) => (toldNow = resolve));
    client.subscribe((batch) => received.push(...batch), {
      onReady: () => firstReady(),
      onAlertDeliveries: (change) => {
        if (change.desktop) toldNow();
      },
    });
    await ready;
    const failed = await runToEnd(service, 'examples/05-try-catch-finally.prose');
    await told;
    const feed = await client.listDesktopAlerts({ after: 0 });
    expect(feed.alerts.map((a) => [a.title, a.runId])).toEqual([['Alert: run failed', failed]]);
    // The stream goes on numbering its events after the telling.
    const after = await runToEnd(service);
    while (!received.some((e) => e.event.runId === after && e.event.type === 'runCompleted')) await new Promise((resolve) => setImmediate(resolve));
    const ids = received.map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
  });

  it('after the server restarts, the client is told to reset and continues live', async () => {
    const first = await serve();
    const { port, token } = first.shell;
    const client = createHttpClient({ baseUrl: first.shell.origin, token, reconnectDelayMs: 1, maxReconnectDelayMs: 20 });
    cleanups.push(() => client.close());
    const received: LiveEvent[] = [];
    let resets = 0;
    let readyCount = 0;
    let disconnects = 0;
    const readyWaiters: (() => void)[] = [];
    const nextReady = (): Promise<void> => new Promise((resolve) => readyWaiters.push(resolve));
    const firstReady = nextReady();
    client.subscribe((batch) => received.push(...batch), {
      onReady: () => {
        readyCount++;
        readyWaiters.shift()?.();
      },
      onReset: () => resets++,
      onDisconnect: () => disconnects++,
    });
    await firstReady;
    await runToEnd(first.service);
    while (received.length === 0) await new Promise((resolve) => setImmediate(resolve));

    const secondReady = nextReady();
    await first.shell.close();
    const second = await serve({ port, token });
    await secondReady;
    expect(resets).toBe(1);
    expect(readyCount).toBe(2);
    // One outage, however many reconnect attempts it took.
    expect(disconnects).toBe(1);
    const before = received.length;
    const runId = await runToEnd(second.service);
    while (!received.some((e) => e.event.runId === runId && e.event.type === 'runCompleted')) await new Promise((resolve) => setImmediate(resolve));
    // The new instance numbers from 1 again: the client follows it instead of waiting for old ids.
    expect(received[before]?.id).toBe(1);
  });

  it('a stream that goes silent (no heartbeat) is dropped, reported and reconnected', async () => {
    const { shell } = await serve();
    let streams = 0;
    // The first stream delivers its first chunk (ready) and then nothing, as a hung server would.
    const hangingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith('/api/stream')) return response;
      streams++;
      if (streams > 1) return response;
      const reader = (response.body as NonNullable<typeof response.body>).getReader();
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent) return new Promise<void>(() => undefined);
          const { value } = await reader.read();
          sent = true;
          if (value) controller.enqueue(value);
        },
        cancel: () => reader.cancel(),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = createHttpClient({ baseUrl: shell.origin, token: shell.token, fetch: hangingFetch, reconnectDelayMs: 1, stallMs: 50 });
    cleanups.push(() => client.close());
    const order: string[] = [];
    let secondReady: () => void = () => undefined;
    const twice = new Promise<void>((resolve) => (secondReady = resolve));
    client.subscribe(() => undefined, {
      onReady: () => {
        order.push('ready');
        if (order.filter((o) => o === 'ready').length === 2) secondReady();
      },
      onDisconnect: () => order.push('disconnect'),
    });
    await twice;
    expect(order).toEqual(['ready', 'disconnect', 'ready']);
    expect(streams).toBe(2);
  });

  it('a client without the token sends no Authorization header and reads "missing token"; with it, only the header carries it', async () => {
    const { shell } = await serve();
    const sent: { authorization: string | null; cookie: string | null; url: string }[] = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      sent.push({ authorization: headers.get('authorization'), cookie: headers.get('cookie'), url: String(input) });
      return fetch(input, { ...init, headers });
    };
    const bare = createHttpClient({ baseUrl: shell.origin, token: '', fetch: recording });
    await expect(bare.listFlows()).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/^missing token/) as unknown as string });
    const holder = createHttpClient({ baseUrl: shell.origin, token: shell.token, fetch: recording });
    expect(Array.isArray(await holder.listFlows())).toBe(true);
    expect(sent).toEqual([
      { authorization: null, cookie: null, url: `${shell.origin}/api/flows` },
      { authorization: `Bearer ${shell.token}`, cookie: null, url: `${shell.origin}/api/flows` },
    ]);
  });
});
