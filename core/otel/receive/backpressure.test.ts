import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { apiRequestLogs, TestExporter, type ExportOutcome } from '../../testing/otlp-exporter.js';
import { skipTitle } from '../../testing/skip.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import type { IngestQueueOptions } from './ingest-queue.js';
import { startOtlpReceiver, type OtlpReceiver } from './receiver.js';

/**
 * The receiver under more telemetry than it can write (docs/otel.md "Backpressure"): a real
 * receiver on a real store, an exporter that behaves as the OpenTelemetry SDKs do (keep-alive
 * sockets, a 10 s timeout, Retry-After honoured), and a writer held by the test so the queue fills
 * when the test says, not when the machine is slow. What is checked is what each payload was
 * answered and what the journal holds, never how long anything took.
 */

const BATCH = 50;
const SESSIONS = 4;
const tempDir = tempDirs();

/** A writer the test holds: every transaction waits until `open()`. */
function heldWriter(): { beforeWrite: () => Promise<void>; open: () => void; readonly waiting: number } {
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  let isOpen = false;
  let waiting = 0;
  return {
    beforeWrite: () => {
      if (isOpen) return Promise.resolve();
      waiting += 1;
      return opened.then(() => void (waiting -= 1));
    },
    open: () => {
      isOpen = true;
      release();
    },
    get waiting() {
      return waiting;
    },
  };
}

/** When the payloads say they were made: a payload sent again is the same bytes, as an exporter's retry is. */
const MADE_AT = Date.now();
/** Payload `n`: BATCH API requests numbered from 10,000 (so every payload has the same size). */
const payload = (n: number): string => apiRequestLogs(10_000 + n * BATCH, BATCH, SESSIONS, MADE_AT);

async function attemptsIn(store: HivewatchStore): Promise<number> {
  const runs = (await store.listRuns({ limit: 100 })).runs.filter((run) => run.flow.startsWith('external:'));
  return runs.reduce((sum, run) => sum + run.attemptCount, 0);
}

const statuses = (outcome: ExportOutcome): string => outcome.answers.map((a) => a.status).join(' ');

let store: HivewatchStore | undefined;
let receiver: OtlpReceiver | undefined;
let exporter: TestExporter | undefined;
afterEach(async () => {
  exporter?.close();
  await receiver?.close();
  await store?.close();
  [exporter, receiver, store] = [undefined, undefined, undefined];
});

async function start(open: () => Promise<HivewatchStore>, queue: IngestQueueOptions, exporterOptions: { maxTries: number }): Promise<OtlpReceiver> {
  store = await open();
  receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue });
  exporter = new TestExporter(receiver.endpoint, receiver.token, { sockets: 8, secondMs: 10, ...exporterOptions });
  return receiver;
}

const sqlite = (): Promise<HivewatchStore> => openStore({ path: join(tempDir('hw-backpressure-'), 'hw.db') });

describe('OTLP backpressure: the bounded queue', () => {
  it.each([
    ['records', (size: number) => ({ maxRecords: 4 * BATCH, maxBytes: 1000 * size }), /200 records are waiting \(at most 200\)/],
    ['bytes', (size: number) => ({ maxRecords: 1_000_000, maxBytes: 4 * size }), /bytes are waiting \(at most \d+\)/],
  ])('full in %s: a payload past the bound is answered 429 with Retry-After at once, and is taken when retried', async (_bound, bounds, reason) => {
    const writer = heldWriter();
    const size = Buffer.byteLength(payload(0));
    const otlp = await start(sqlite, { ...bounds(size), answerWithinMs: 60_000, beforeWrite: writer.beforeWrite }, { maxTries: 1 });
    const first = exporter!.export(payload(0));
    await vi.waitFor(() => expect(writer.waiting).toBe(1), { timeout: 10_000 });
    const queued = [1, 2, 3, 4].map((n) => exporter!.export(payload(n)));
    await vi.waitFor(() => expect(otlp.queued).toEqual({ records: 4 * BATCH, bytes: 4 * size }), { timeout: 10_000 });

    const refused = await exporter!.export(payload(5));
    expect(refused.answers).toEqual([{ status: 429, retryAfter: '1', timedOut: false }]);
    const text = await fetch(`${otlp.endpoint}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otlp.token}`, 'content-type': 'application/json' },
      body: payload(6),
    });
    expect(text.status).toBe(429);
    expect(((await text.json()) as { error: string }).error).toMatch(reason);

    writer.open();
    expect((await Promise.all([first, ...queued])).map(statuses)).toEqual(['200', '200', '200', '200', '200']);
    expect(await exporter!.export(payload(5))).toEqual({ answers: [{ status: 200, retryAfter: null, timedOut: false }] });
    expect(await attemptsIn(store!)).toBe(6 * BATCH);
    expect(otlp.queued).toEqual({ records: 0, bytes: 0 });
  });

  it('a payload not journaled in time is answered 503 with Retry-After; its retry counts once', async () => {
    const writer = heldWriter();
    const otlp = await start(sqlite, { answerWithinMs: 50, beforeWrite: writer.beforeWrite }, { maxTries: 1 });
    // The first payload's transaction has begun (it waits in the writer); the second waits in the queue.
    const writing = exporter!.export(payload(0));
    await vi.waitFor(() => expect(writer.waiting).toBe(1), { timeout: 10_000 });
    const waiting = exporter!.export(payload(1));
    expect((await writing).answers).toEqual([{ status: 503, retryAfter: '1', timedOut: false }]);
    expect((await waiting).answers).toEqual([{ status: 503, retryAfter: '1', timedOut: false }]);
    // The waiting one left the queue; the one being written goes on and commits once the writer is free.
    expect(otlp.queued).toEqual({ records: 0, bytes: 0 });
    writer.open();
    await expect.poll(() => attemptsIn(store!), { timeout: 10_000 }).toBe(BATCH);

    const retrying = new TestExporter(otlp.endpoint, otlp.token, { sockets: 2, secondMs: 10, maxTries: 100 });
    try {
      const retried = await Promise.all([retrying.export(payload(0)), retrying.export(payload(1))]);
      expect(retried.map((outcome) => outcome.answers.at(-1)?.status)).toEqual([200, 200]);
    } finally {
      retrying.close();
    }
    expect(await attemptsIn(store!)).toBe(2 * BATCH);
    expect(await store!.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});

describe('OTLP ingest: group commit', () => {
  it.each([
    ['one transaction for the four payloads that waited', 5_000, [BATCH, 4 * BATCH]],
    ['transactions of at most maxGroupRecords', 2 * BATCH, [BATCH, 2 * BATCH, 2 * BATCH]],
  ])('%s', async (_title, maxGroupRecords, transactions) => {
    const writer = heldWriter();
    // A pace budget that never binds: the groups are what waited, cut at maxGroupRecords only.
    const otlp = await start(sqlite, { maxGroupRecords, groupWithinMs: 3_600_000, answerWithinMs: 60_000, beforeWrite: writer.beforeWrite }, { maxTries: 1 });
    const commits: number[] = [];
    store!.subscribe((events) => commits.push(events.filter((event) => event.type === 'attemptStarted').length));
    const first = exporter!.export(payload(0));
    await vi.waitFor(() => expect(writer.waiting).toBe(1), { timeout: 10_000 });
    const waiting = [1, 2, 3, 4].map((n) => exporter!.export(payload(n)));
    await vi.waitFor(() => expect(otlp.queued.records).toBe(4 * BATCH), { timeout: 10_000 });
    writer.open();
    expect((await Promise.all([first, ...waiting])).map(statuses)).toEqual(['200', '200', '200', '200', '200']);
    // Each API request is one attempt started: the records each transaction journaled.
    expect(commits).toEqual(transactions);
    expect(await attemptsIn(store!)).toBe(5 * BATCH);
    expect(await store!.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});

interface Engine {
  name: string;
  skip: string | null;
  open(): Promise<HivewatchStore>;
}

const databases = new TestDatabases();
afterAll(() => databases.stop());

const engines: Engine[] = [
  { name: 'SQLite', skip: null, open: sqlite },
  {
    name: 'PostgreSQL',
    skip: postgresBinaries ? null : postgresMissing,
    async open() {
      await databases.start();
      const url = await databases.fresh('backpressure');
      await databases.endPools();
      return openStore({ path: url });
    },
  },
];

describe.each(engines)('OTLP backpressure: a flood on $name', (engine) => {
  const PAYLOADS = 40;
  const title = `${engine.name}: every payload is answered 200, 429 or 503 (with Retry-After) and none waits for its exporter's timeout; none is lost or counted twice`;
  it.skipIf(engine.skip !== null)(
    skipTitle(title, engine.skip),
    async () => {
      const writer = heldWriter();
      // The default answer deadline: the one the receiver keeps in production.
      const otlp = await start(() => engine.open(), { maxRecords: 4 * BATCH, beforeWrite: writer.beforeWrite }, { maxTries: 500 });
      const exports = Array.from({ length: PAYLOADS }, (_, n) => exporter!.export(payload(n)));
      // The writer is held until the queue is full and a payload was told to back off.
      await vi.waitFor(() => expect(exporter!.answered.get(429) ?? 0).toBeGreaterThan(0), { timeout: 10_000 });
      expect(otlp.queued.records).toBeGreaterThan(0);
      writer.open();
      const outcomes = await Promise.all(exports);

      const sequences = outcomes.map(statuses);
      expect(sequences.filter((sequence) => !/^((429|503) )*200$/.test(sequence))).toEqual([]);
      const backedOff = outcomes.flatMap((outcome) => outcome.answers).filter((answer) => answer.status !== 200);
      expect(backedOff.length).toBeGreaterThan(0);
      expect(backedOff.filter((answer) => answer.retryAfter !== '1' || answer.timedOut)).toEqual([]);
      expect(await attemptsIn(store!)).toBe(PAYLOADS * BATCH);
      expect(otlp.queued).toEqual({ records: 0, bytes: 0 });
      expect(await store!.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    },
    60_000,
  );
});
