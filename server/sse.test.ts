import { afterEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../core/service/api.js';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore } from '../core/store/index.js';
import { SseParser, type SseMessage } from '../renderer/api/sse.js';
import { startHttpShell, type HttpShell } from './http.js';

/** A raw SSE connection read message by message (what a browser's EventSource would see). */
class Stream {
  private readonly controller = new AbortController();
  private readonly parser = new SseParser();
  private reader: ReadableStreamDefaultReader<string> | null = null;
  private queue: SseMessage[] = [];
  rawText = '';

  constructor(
    private readonly shell: HttpShell,
    private readonly headers: Record<string, string> = {},
    private readonly query = '',
  ) {}

  async open(): Promise<this> {
    const response = await fetch(`${this.shell.origin}/api/stream${this.query}`, {
      headers: { authorization: `Bearer ${this.shell.token}`, ...this.headers },
      signal: this.controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    this.reader = (response.body as NonNullable<typeof response.body>).pipeThrough(new TextDecoderStream()).getReader();
    return this;
  }

  async next(): Promise<SseMessage> {
    while (this.queue.length === 0) {
      const { value, done } = await (this.reader as ReadableStreamDefaultReader<string>).read();
      if (done) throw new Error('stream ended');
      this.rawText += value;
      this.queue.push(...this.parser.push(value));
    }
    return this.queue.shift() as SseMessage;
  }

  /** Reads until `match`, returning every message read (the match included). */
  async until(match: (m: SseMessage) => boolean): Promise<SseMessage[]> {
    const seen: SseMessage[] = [];
    for (;;) {
      const message = await this.next();
      seen.push(message);
      if (match(message)) return seen;
    }
  }

  close(): void {
    this.controller.abort();
  }
}

const idNumber = (m: SseMessage): number => Number((m.id as string).split('.')[1]);
const eventOf = (m: SseMessage): HivewatchEvent => JSON.parse(m.data) as HivewatchEvent;

describe('server-sent events', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const serve = async (
    options: { liveCapacity?: number; heartbeatMs?: number; alertsTimer?: false } = {},
  ): Promise<{ shell: HttpShell; service: HivewatchService }> => {
    const store = await openStore({ path: ':memory:' });
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      clock: 'virtual',
      ...(options.liveCapacity ? { liveCapacity: options.liveCapacity } : {}),
      // The alerts' timer never ticks: a pass comes only after a commit that can alert.
      ...(options.alertsTimer === false ? { alerts: { scheduler: () => () => undefined } } : {}),
    });
    const shell = await startHttpShell({ service, staticDir: null, ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}) });
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

  it('says `alerts` (no id) once a failure has fired a desktop rule, so the window reads the feed then', async () => {
    const { shell, service } = await serve({ alertsTimer: false });
    await service.addAlertRule({ when: 'run-failed', desktop: true, throttle: '0' });
    const stream = await new Stream(shell).open();
    await stream.until((m) => m.event === 'ready');
    const runId = await runToEnd(service, 'examples/05-try-catch-finally.prose');
    const seen = await stream.until((m) => m.event === 'alerts');
    const told = seen[seen.length - 1] as SseMessage;
    expect(told).toMatchObject({ event: 'alerts', data: '{"desktop":true}' });
    expect(told.id).toBeUndefined();
    // The telling does not replace the events: the failure is streamed too (the hub's frame may send it after).
    const failed = (m: SseMessage): boolean => m.event === 'hw' && eventOf(m).runId === runId && eventOf(m).type === 'runFailed';
    if (!seen.some(failed)) await stream.until(failed);
    stream.close();
    const feed = await service.listDesktopAlerts({ after: 0 });
    expect(feed.alerts.map((a) => a.runId)).toEqual([runId]);
  });

  it('a reconnect with Last-Event-ID resumes with no gap and no duplicate', async () => {
    const { shell, service } = await serve();
    const first = await new Stream(shell).open();
    const ready = (await first.until((m) => m.event === 'ready'))[0] as SseMessage;
    expect(ready.id).toBe(`${service.instance}.0`);
    expect(JSON.parse(ready.data)).toEqual({ instance: service.instance, startId: 0 });

    const runA = await runToEnd(service);
    const before: SseMessage[] = [];
    while (before.length < 5) before.push(await first.next());
    first.close();
    expect(before.every((m) => m.event === 'hw')).toBe(true);
    const lastSeen = before[before.length - 1] as SseMessage;

    // More happens while nobody listens.
    const runB = await runToEnd(service, 'examples/05-try-catch-finally.prose');

    const second = await new Stream(shell, { 'last-event-id': lastSeen.id as string }).open();
    const resumedReady = await second.next();
    expect(resumedReady).toMatchObject({ event: 'ready', id: lastSeen.id });
    const after = (await second.until((m) => m.event === 'hw' && eventOf(m).runId === runB && eventOf(m).type === 'runFailed')).filter((m) => m.event === 'hw');
    second.close();

    const ids = [...before, ...after].map(idNumber);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(new Set(ids).size).toBe(ids.length);
    const seqsOf = (runId: string): number[] =>
      [...before, ...after]
        .map(eventOf)
        .filter((e) => e.runId === runId)
        .map((e) => e.seq);
    expect(seqsOf(runA)).toEqual(Array.from({ length: seqsOf(runA).length }, (_, i) => i + 1));
    expect(seqsOf(runA).length).toBe((await service.getEvents({ runId: runA })).length);
    expect(seqsOf(runB).length).toBe((await service.getEvents({ runId: runB })).length);
    expect([...before, ...after].map((m) => m.id?.split('.')[0])).toEqual([...before, ...after].map(() => service.instance));

    // `?lastEventId=` works too, for clients that cannot set the header.
    const third = await new Stream(shell, {}, `?lastEventId=${encodeURIComponent(lastSeen.id as string)}`).open();
    await third.next();
    expect(idNumber(await third.next())).toBe(idNumber(lastSeen) + 1);
    third.close();
  });

  it('an id of another instance, a future id, a malformed id or one older than the ring gets reset', async () => {
    const { shell, service } = await serve({ liveCapacity: 5 });
    await runToEnd(service);
    const head = service.subscribeLive({ onBatch: () => undefined }).startId;
    expect(head).toBeGreaterThan(5);
    for (const lastId of ['0123abcd.3', `${service.instance}.${head + 100}`, 'garbage', `${service.instance}.1`, '2']) {
      const stream = await new Stream(shell, { 'last-event-id': lastId }).open();
      const reset = await stream.next();
      expect(reset.event).toBe('reset');
      expect(reset.id).toBe(`${service.instance}.${head}`);
      expect(JSON.parse(reset.data)).toEqual({ instance: service.instance, head });
      expect(await stream.next()).toMatchObject({ event: 'ready', id: `${service.instance}.${head}` });
      stream.close();
    }
    // Still inside the ring: no reset.
    const inRing = await new Stream(shell, { 'last-event-id': `${service.instance}.${head - 2}` }).open();
    expect((await inRing.next()).event).toBe('ready');
    expect((await inRing.next()).event).toBe('hw');
    inRing.close();
  });

  it('sends heartbeat comments', async () => {
    const { shell } = await serve({ heartbeatMs: 20 });
    const stream = await new Stream(shell).open();
    await stream.next();
    while (!stream.rawText.includes(': hb\n\n')) {
      const reader = (stream as unknown as { reader: ReadableStreamDefaultReader<string> }).reader;
      const { value } = await reader.read();
      stream.rawText += value ?? '';
    }
    stream.close();
  });

  it('closing the server ends open streams', async () => {
    const { shell } = await serve();
    const stream = await new Stream(shell).open();
    await stream.next();
    await shell.close();
    await expect(stream.next()).rejects.toThrow();
  });
});
