import { spawn } from 'node:child_process';
import { waiting } from '../../testing/waiting.js';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { postgresBinaries, TestDatabases } from '../../store/testing/test-databases.js';
import type { LiveEvent } from '../api.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/**
 * Every process on one database is a host like any other. Two services on two
 * connections to one database stand for the app and a CLI (or, on PostgreSQL, two machines);
 * some tests run a real `hivewatch run`. The same journeys run on both engines.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');

/** A task that waits an hour in backoff (real clock): a run that stays active until told. */
const WAITING_FLOW = `
agent worker:
  runtime: "fake"
session "Wait for the rate limit" (retry: 2, backoff: "exponential", delay: "1h", max-delay: "1h")
  agent: worker
  simulate: "rate_limit, ok"
`;

let dir: string;
let dbPath: string;
let userFlowsDir: string;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cross-'));
  userFlowsDir = join(dir, 'flows');
  mkdirSync(userFlowsDir);
  writeFileSync(join(userFlowsDir, 'waits.prose'), WAITING_FLOW);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function host(options: { clock?: 'real' | 'virtual' } = {}): Promise<{ service: HivewatchService; store: HivewatchStore }> {
  const store = await openStore({ path: dbPath });
  const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir, clock: options.clock ?? 'virtual', tailIntervalMs: 10 });
  cleanups.push(
    () => store.close(),
    () => service.close({ timeoutMs: 5_000 }),
  );
  return { service, store };
}

/** The store as the service sees it, but with no pushed changes (`watchChanges` never calls back). */
function withoutChangePush(store: HivewatchStore): HivewatchStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'watchChanges') return () => () => undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The id of a run that has a task waiting in backoff, if any. */
async function waitingRunOf(store: HivewatchStore): Promise<string | undefined> {
  for (const run of (await store.listRuns({ limit: 10 })).runs) {
    if ((await store.getEvents(run.id, 0, 1_000)).some((e) => e.type === 'retryScheduled')) return run.id;
  }
  return undefined;
}

const key = (e: HivewatchEvent): string => `${e.runId}#${e.seq}`;

async function journalFrom(store: HivewatchStore, after: number): Promise<{ id: number; key: string }[]> {
  return (await store.eventsAfterCommit(after, 100_000)).map((c) => ({ id: c.commitSeq, key: key(c.event) }));
}

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});

/** Where each engine keeps a fresh database for one test. */
const engines = [
  { name: 'SQLite', fresh: () => Promise.resolve(join(dir, 'hivewatch.db')) },
  ...(postgresBinaries ? [{ name: 'PostgreSQL', fresh: () => databases.fresh('cross') }] : []),
];

describe.each(engines)('on $name', (engine) => {
  beforeEach(async () => {
    dbPath = await engine.fresh();
  });

  describe('live across processes', () => {
    it('a subscriber sees every event of both hosts once, in commit order, across a re-subscribe', async () => {
      const app = await host();
      const cli = await host();
      const start = await app.store.journalHead();
      const seen: LiveEvent[] = [];
      const first = app.service.subscribeLive({ onBatch: (batch) => seen.push(...batch) });
      expect(first.startId).toBe(start);

      const [mine, theirs] = await Promise.all([
        app.service.startRun({ flow: 'examples/04-parallel-fan-out.prose' }),
        cli.service.startRun({ flow: 'examples/02-rate-limited-api.prose' }),
      ]);
      await Promise.all([app.service.whenFinished(mine.runId), cli.service.whenFinished(theirs.runId)]);
      await expect.poll(() => seen.some((e) => e.event.runId === theirs.runId), { message: "the other host's first events", timeout: 20_000 }).toBeTruthy();
      first.unsubscribe();
      const lastSeen = (seen[seen.length - 1] as LiveEvent).id;

      // The other host runs again while nobody listens; the subscriber comes back after its last id.
      const again = await cli.service.startRun({ flow: 'examples/01-happy-path.prose' });
      await cli.service.whenFinished(again.runId);
      const second = app.service.subscribeLive({ afterId: lastSeen, onBatch: (batch) => seen.push(...batch) });
      expect(second.reset).toBe(false);
      const total = async (): Promise<number> => (await journalFrom(cli.store, start)).length;
      await expect
        .poll(async () => seen.length >= (await total()) && seen.some((e) => e.event.runId === again.runId && e.event.type === 'runCompleted'), {
          message: 'every committed event',
          timeout: 20_000,
        })
        .toBeTruthy();
      second.unsubscribe();

      const journal = await journalFrom(cli.store, start);
      expect(seen.map((e) => ({ id: e.id, key: key(e.event) }))).toEqual(journal);
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
      for (const runId of [mine.runId, theirs.runId, again.runId]) {
        expect(seen.filter((e) => e.event.runId === runId).map((e) => e.event.seq)).toEqual((await app.store.getEvents(runId, 0, 100_000)).map((e) => e.seq));
      }
    });

    it('a restarted service resumes an id of the same database from the journal, with no reset', async () => {
      const before = await host();
      const { runId } = await before.service.startRun({ flow: 'examples/01-happy-path.prose' });
      await before.service.whenFinished(runId);
      const instance = before.service.instance;
      await before.service.close();
      const after = await host();
      expect(after.service.instance).toBe(instance);
      const seen: LiveEvent[] = [];
      const sub = after.service.subscribeLive({ afterId: 2, instance, onBatch: (batch) => seen.push(...batch) });
      expect(sub).toMatchObject({ reset: false, startId: 2 });
      await expect.poll(async () => seen.length === (await after.store.journalHead()) - 2, { message: 'the backfilled events', timeout: 20_000 }).toBeTruthy();
      expect(seen.map((e) => e.id)).toEqual((await journalFrom(after.store, 2)).map((e) => e.id));
      sub.unsubscribe();
    });

    it('a real `hivewatch run` subprocess on the database is seen live, every event once, in order', async () => {
      const app = await host();
      const start = await app.store.journalHead();
      const seen: LiveEvent[] = [];
      const sub = app.service.subscribeLive({ onBatch: (batch) => seen.push(...batch) });
      const child = spawn(process.execPath, [BIN, 'run', join(EXAMPLES_DIR, '03-flaky-tests.prose'), '--virtual-clock', '--json', '--db', dbPath], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number];
      expect(code).toBe(0);
      const printed = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as HivewatchEvent);
      await expect.poll(() => seen.some((e) => e.event.type === 'runCompleted'), { message: "the subprocess run's last event", timeout: 20_000 }).toBeTruthy();
      sub.unsubscribe();
      expect(seen.map((e) => ({ id: e.id, key: key(e.event) }))).toEqual(await journalFrom(app.store, start));
      expect(seen.map((e) => key(e.event))).toEqual(printed.map(key));
    });
  });

  describe('the probe (injected timer)', () => {
    it("publishes another connection's commits only when probed, once, and applies its commands then", async () => {
      const store = await openStore({ path: dbPath });
      // The probe alone: on PostgreSQL a NOTIFY also probes at once (live/journal-tail.ts), so a
      // notification delivered before an assertion below made it see the commit or command
      // early, now and then on a busy machine. That push has tests of its own.
      const probedOnly = withoutChangePush(store);
      const service = await createHivewatchService({
        store: probedOnly,
        examplesDir: EXAMPLES_DIR,
        userFlowsDir,
        clock: 'real',
        tailScheduler: () => () => undefined,
      });
      cleanups.push(
        () => store.close(),
        () => service.close({ timeoutMs: 5_000 }),
      );
      const other = await openStore({ path: dbPath });
      cleanups.push(() => other.close());
      const seen: LiveEvent[] = [];
      service.subscribeLive({ onBatch: (batch) => seen.push(...batch) });
      const start = await store.journalHead();
      const run = new JournalBuilder('elsewhere').start().runStep([{ attempts: ['ok'] }]);
      await other.appendEvents(run.events);
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual([]);
      await service.probeJournal();
      await expect.poll(async () => seen.length > 0, { message: 'the published batch', timeout: 20_000 }).toBeTruthy();
      expect(seen.map((e) => [e.id, key(e.event)])).toEqual(run.events.map((e, i) => [start + 1 + i, key(e)]));
      await service.probeJournal();
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toHaveLength(run.events.length);

      // A command for a run this service hosts is applied on the probe that sees it.
      const { runId } = await service.startRun({ flow: 'user/waits.prose' });
      const done = service.whenFinished(runId);
      await expect
        .poll(async () => (await store.getEvents(runId, 0, 1_000)).some((e) => e.type === 'retryScheduled'), {
          message: 'the task waiting in backoff',
          timeout: 20_000,
        })
        .toBeTruthy();
      await other.enqueueCommand({ commandId: 'cmd_from_other', runId, kind: 'cancel', reason: 'from elsewhere' });
      expect((await store.getEvents(runId, 0, 1_000)).some((e) => e.type === 'cancelRequested')).toBe(false);
      await service.probeJournal();
      expect(await other.getCommand('cmd_from_other')).toMatchObject({ state: 'done', accepted: true });
      expect((await store.getEvents(runId, 0, 1_000)).find((e) => e.type === 'cancelRequested')).toMatchObject({
        commandId: 'cmd_from_other',
        reason: 'from elsewhere',
      });
      expect((await done)?.status).toBe('cancelled');
    });
  });

  describe('control across processes', () => {
    const waitingRun = async (owner: HivewatchService, store: HivewatchStore): Promise<{ runId: string; taskId: string; done: Promise<unknown> }> => {
      const { runId } = await owner.startRun({ flow: 'user/waits.prose', virtualClock: false });
      const done = owner.whenFinished(runId) as Promise<unknown>;
      const scheduled = await vi.waitFor(
        async () => (await store.getEvents(runId, 0, 1_000)).find((e) => e.type === 'retryScheduled') ?? waiting('the task waiting in backoff'),
        { timeout: 20_000 },
      );
      return { runId, taskId: (scheduled as Extract<HivewatchEvent, { type: 'retryScheduled' }>).taskId, done };
    };
    const statusOf = async (store: HivewatchStore, runId: string, done: Promise<unknown>): Promise<string | undefined> => {
      await done;
      return (await store.getRun(runId))?.run.status;
    };

    it('cancel from another process reaches the hosting service and is acknowledged in its journal', async () => {
      const owner = await host({ clock: 'real' });
      const window = await host();
      const { runId, done } = await waitingRun(owner.service, owner.store);
      const ack = await window.service.cancelRun({ runId, reason: 'stop from the window' });
      expect(ack).toEqual({ commandId: expect.stringMatching(/^cmd_/) as string, accepted: true });
      expect(await statusOf(owner.store, runId, done)).toBe('cancelled');
      const events = await window.store.getEvents(runId, 0, 1_000);
      expect(events.find((e) => e.type === 'cancelRequested')).toMatchObject({
        commandId: ack.commandId,
        reason: 'stop from the window',
        alreadyCancelling: false,
      });
      expect(events.find((e) => e.type === 'runCancelling')).toMatchObject({ commandId: ack.commandId, epoch: 1 });
      expect(events[events.length - 1]?.type).toBe('runCancelled');
      expect(await window.store.getCommand(ack.commandId)).toMatchObject({ state: 'done', accepted: true });
    });

    it("Retry now from another process skips the hosting service's backoff, acknowledged with the command id", async () => {
      const owner = await host({ clock: 'real' });
      const window = await host();
      const { runId, taskId, done } = await waitingRun(owner.service, owner.store);
      const ack = await window.service.skipBackoff({ runId, taskId });
      expect(ack).toEqual({ commandId: expect.stringMatching(/^cmd_/) as string, accepted: true });
      expect(await statusOf(owner.store, runId, done)).toBe('completed');
      expect((await window.store.getEvents(runId, 0, 1_000)).find((e) => e.type === 'backoffSkipped')).toMatchObject({ taskId, commandId: ack.commandId });
      // Not waiting any more: refused by the host's rules, not by distance.
      const late = await window.service.skipBackoff({ runId, taskId });
      expect(late).toMatchObject({ accepted: false, message: `run ${runId} is completed; it is not executed by this process` });
    });

    it('Ctrl-C on the host and a cancel from the window race: one cancelRequested wins, the other is told', async () => {
      const owner = await host({ clock: 'real' });
      const window = await host();
      const { runId, done } = await waitingRun(owner.service, owner.store);
      const [local, remote] = await Promise.all([
        owner.service.cancelRun({ runId, reason: 'interrupted from the terminal (SIGINT)' }),
        window.service.cancelRun({ runId, reason: 'stop from the window' }),
      ]);
      expect(await statusOf(owner.store, runId, done)).toBe('cancelled');
      expect([local.accepted, remote.accepted].filter(Boolean)).toHaveLength(1);
      const loser = local.accepted ? remote : local;
      expect([`run ${runId} is already cancelling`, `run ${runId} is cancelled; nothing to cancel`]).toContain(loser.message);
      const events = await owner.store.getEvents(runId, 0, 1_000);
      expect(events.filter((e) => e.type === 'cancelRequested' && !e.alreadyCancelling)).toHaveLength(1);
      expect(events.filter((e) => e.type === 'runCancelling')).toHaveLength(1);
      expect(events[events.length - 1]?.type).toBe('runCancelled');
    });

    it('the window wins the race: Ctrl-C after it is acknowledged as already cancelling', async () => {
      const owner = await host({ clock: 'real' });
      const window = await host();
      const { runId, done } = await waitingRun(owner.service, owner.store);
      const winner = await window.service.cancelRun({ runId, reason: 'stop from the window' });
      expect(winner.accepted).toBe(true);
      const ctrlC = await owner.service.cancelRun({ runId, reason: 'interrupted from the terminal (SIGINT)' });
      expect(ctrlC.accepted).toBe(false);
      expect([`run ${runId} is already cancelling`, `run ${runId} is cancelled; nothing to cancel`]).toContain(ctrlC.message);
      expect(await statusOf(owner.store, runId, done)).toBe('cancelled');
      const requests = (await owner.store.getEvents(runId, 0, 1_000)).filter((e) => e.type === 'cancelRequested');
      expect(requests.filter((e) => !e.alreadyCancelling).map((e) => e.commandId)).toEqual([winner.commandId]);
    });

    it('a `hivewatch run` subprocess is cancelled from the window: acknowledged in its journal, exit 3, runCancelled last', async () => {
      const window = await host();
      const child = spawn(process.execPath, [BIN, 'run', join(userFlowsDir, 'waits.prose'), '--json', '--db', dbPath], { stdio: ['ignore', 'pipe', 'pipe'] });
      const closed = once(child, 'close') as Promise<[number]>;
      const runId = await vi.waitFor(async () => (await waitingRunOf(window.store)) ?? waiting('the CLI run waiting in backoff'), { timeout: 20_000 });
      const ack = await window.service.cancelRun({ runId, reason: 'stop from the window' });
      expect(ack).toEqual({ commandId: ack.commandId, accepted: true });
      expect(ack.message).toBeUndefined();
      const [code] = await closed;
      expect(code).toBe(3);
      const events = await window.store.getEvents(runId, 0, 1_000);
      expect(events.find((e) => e.type === 'cancelRequested')).toMatchObject({ commandId: ack.commandId, alreadyCancelling: false });
      expect(events[events.length - 1]?.type).toBe('runCancelled');
    });

    it('a command for a run whose host is gone makes the run interrupted instead of hanging', async () => {
      const window = await host();
      // A host that journaled a start and went away without ending it.
      const gone = await openStore({ path: dbPath, recover: false });
      await gone.appendEvents(new JournalBuilder('orphan').start().events);
      await gone.close();
      const ack = await window.service.cancelRun({ runId: 'orphan' });
      expect(ack).toMatchObject({ accepted: true, message: `run orphan was not cancelled but interrupted: its host process (pid ${process.pid}) is gone` });
      expect((await window.store.getRun('orphan'))?.run.status).toBe('interrupted');
      const skip = await window.service.skipBackoff({ runId: 'orphan', taskId: '1:0' });
      expect(skip).toMatchObject({ accepted: false, message: 'run orphan is interrupted; it is not executed by this process' });
    });
  });
});
