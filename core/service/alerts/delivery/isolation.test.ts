import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type HivewatchStore } from '../../../store/index.js';
import { JournalBuilder } from '../../../store/testing/journal-builder.js';
import { tempDirs } from '../../../testing/temp-dirs.js';
import { waiting } from '../../../testing/waiting.js';
import { listDeliveries, type AlertDelivery } from '../alert-queries.js';
import { addAlertRule } from '../alerts-api.js';
import { AlertEngine } from '../engine.js';
import { ManualClock, TestReceiver } from '../testing.js';
import { ANSWER_BYTES } from './http-post.js';
import { StallingReceiver } from './testing.js';

/**
 * Receivers that would stall a sender beside a healthy one, all real HTTP servers on 127.0.0.1,
 * the engine on a real SQLite file. Independence is shown by order, not by time: the POSTs to
 * the hanging receiver get a 60 s deadline, so every healthy alert that arrives while the first
 * of them is still open did not wait for it. Memory is read after each delivery to the
 * endless-body receiver has ended, and must stay far below what that receiver would have sent.
 */

const tempDir = tempDirs();
const T0 = Date.UTC(2026, 10, 26, 9, 0);
const MiB = 1_024 * 1_024;
const engines: AlertEngine[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // No new POST starts; then the receivers drop what they hold, the engines record it, the stores close.
  for (const engine of engines.splice(0)) engine.halt();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const failed = (runId: string, flow = 'user/a.prose'): JournalBuilder =>
  new JournalBuilder(runId, { flow, start: T0 })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
    .fail();

async function setup(limits?: ConstructorParameters<typeof AlertEngine>[0]['limits']): Promise<{ store: HivewatchStore; engine: AlertEngine }> {
  const clock = new ManualClock(T0);
  const store = await openStore({ path: join(tempDir('hw-alerts-isolation-'), 'hivewatch.db'), now: clock.now });
  const engine = new AlertEngine({ store, host: 'host-a', now: clock.now, timeoutMs: 60_000, ...(limits ? { limits } : {}) });
  engines.push(engine);
  cleanups.push(async () => {
    await engine.idle();
    await store.close();
  });
  return { store, engine };
}

async function receiver<T extends TestReceiver | StallingReceiver>(made: T): Promise<{ receiver: T; url: string }> {
  const url = await made.start();
  cleanups.push(() => made.stop());
  return { receiver: made, url };
}

const deliveriesOf = async (store: HivewatchStore, ruleId: string): Promise<AlertDelivery[]> =>
  (await store.runStatements((d) => listDeliveries(d, 1_000))).filter((d) => d.ruleId === ruleId);

describe('deliveries that no receiver can stall', () => {
  it('a hanging and an endless-body receiver beside a healthy one: the healthy one gets each alert while they stall, memory stays flat', async () => {
    const ROUNDS = 12;
    const { store, engine } = await setup();
    const hanging = await receiver(new StallingReceiver('hang'));
    const endless = await receiver(new StallingReceiver('endless'));
    const healthy = await receiver(new TestReceiver());
    const hangingRule = await addAlertRule(store, { when: 'run-failed', webhook: `${hanging.url}/stuck`, throttle: '0' }, 'test', T0);
    await addAlertRule(store, { when: 'run-failed', webhook: `${endless.url}/firehose`, throttle: '0' }, 'test', T0);
    await addAlertRule(store, { when: 'run-failed', webhook: `${healthy.url}/ok`, throttle: '0' }, 'test', T0);

    const memory: { rss: number; heap: number }[] = [];
    const read = (): void => {
      const { rss, heapUsed } = process.memoryUsage();
      memory.push({ rss, heap: heapUsed });
    };
    read();
    for (let round = 1; round <= ROUNDS; round++) {
      const runId = `run_${String(round).padStart(2, '0')}`;
      await store.appendEvents(failed(runId).events);
      // A pass starts the deliveries and returns; it never waits for a POST.
      await engine.pass();
      await vi.waitFor(() => healthy.receiver.bodies().some((b) => b.subject === runId) || waiting(`the healthy receiver's alert for ${runId}`), {
        timeout: 10_000,
      });
      // The first hanging POST is still open: this alert did not wait behind it.
      expect(hanging.receiver.connections.map((c) => [c.subject, c.closed])).toEqual([['run_01', false]]);
      await vi.waitFor(() => endless.receiver.connectionOf(runId)?.closed || waiting(`the endless answer to ${runId} closed by the sender`), {
        timeout: 10_000,
      });
      read();
    }

    expect(healthy.receiver.bodies().map((b) => b.subject)).toEqual(Array.from({ length: ROUNDS }, (_, i) => `run_${String(i + 1).padStart(2, '0')}`));
    // One hanging POST at a time: its socket does not multiply, its other deliveries wait in the
    // database, due and unleased (attempts 0), for whichever host has a slot first.
    expect(hanging.receiver.open()).toBe(1);
    const waitingForHanging = await deliveriesOf(store, hangingRule.id);
    expect(waitingForHanging.filter((d) => d.status === 'pending' && d.attempts === 0)).toHaveLength(ROUNDS - 1);
    // Every endless answer was cut off by us after a few kilobytes: what the receiver pushed into
    // its socket is what the kernels' buffers took, and memory did not follow it.
    expect(endless.receiver.connections).toHaveLength(ROUNDS);
    expect(endless.receiver.connections.every((c) => c.closed && c.offered > ANSWER_BYTES && c.offered < 32 * MiB)).toBe(true);
    const base = memory[0]!;
    const rssGrowth = Math.max(...memory.map((m) => m.rss)) - base.rss;
    const heapGrowth = Math.max(...memory.map((m) => m.heap)) - base.heap;
    expect(rssGrowth).toBeLessThan(64 * MiB);
    expect(heapGrowth).toBeLessThan(32 * MiB);
  });

  it('bounds: at most one POST per receiver and a few per server; at the overall bound the next delivery waits, due, until a slot frees', async () => {
    const { store, engine } = await setup({ perReceiver: 1, perServer: 2, overall: 3 });
    const serverA = await receiver(new StallingReceiver('hang'));
    const serverB = await receiver(new StallingReceiver('hang'));
    const healthy = await receiver(new TestReceiver());
    // A rule names a flow some run was started from (or a flow file): one earlier run each.
    for (const flow of ['user/stuck.prose', 'user/ok.prose'])
      await store.appendEvents(
        new JournalBuilder(`run_before_${flow}`, { flow, start: T0 })
          .start()
          .runStep([{ attempts: ['ok'] }])
          .complete().events,
      );
    for (const path of ['/one', '/two', '/three'])
      await addAlertRule(store, { when: 'run-failed', flow: 'user/stuck.prose', webhook: `${serverA.url}${path}`, throttle: '0' }, 'test', T0);
    await addAlertRule(store, { when: 'run-failed', flow: 'user/stuck.prose', webhook: serverB.url, throttle: '0' }, 'test', T0);
    const healthyRule = await addAlertRule(store, { when: 'run-failed', flow: 'user/ok.prose', webhook: healthy.url, throttle: '0' }, 'test', T0);

    await store.appendEvents(failed('run_stuck', 'user/stuck.prose').events);
    await engine.pass();
    await vi.waitFor(
      () => (serverA.receiver.connections.length === 2 && serverB.receiver.connections.length === 1) || waiting('two POSTs to server A, one to B'),
      { timeout: 10_000 },
    );
    // Server A's third rule is not posted beside its two: it stays due and unleased.
    const all = await store.runStatements((d) => listDeliveries(d, 1_000));
    expect(all.map((d) => d.attempts).sort()).toEqual([0, 1, 1, 1]);

    // Three in flight: the overall bound. The healthy receiver's delivery is due and waits, unclaimed.
    await store.appendEvents(failed('run_ok', 'user/ok.prose').events);
    await engine.pass();
    const [queued] = await deliveriesOf(store, healthyRule.id);
    expect([queued!.status, queued!.attempts]).toEqual(['pending', 0]);
    expect(healthy.receiver.requests).toHaveLength(0);

    // Server B drops its connection: that slot frees, and the next claim skips server A (at its
    // bound) and takes the healthy receiver's delivery.
    serverB.receiver.dropAll();
    await vi.waitFor(() => healthy.receiver.bodies().some((b) => b.subject === 'run_ok') || waiting('the healthy alert after a slot freed'), {
      timeout: 10_000,
    });
    expect(serverA.receiver.connections).toHaveLength(2);
    expect(serverA.receiver.open()).toBe(2);
  });

  it('a test delivery is posted at once and alone: the process that asked for it posts no other due delivery', async () => {
    const { store } = await setup();
    const healthy = await receiver(new TestReceiver());
    const rule = await addAlertRule(store, { when: 'run-failed', webhook: healthy.url, throttle: '0' }, 'test', T0);
    const serving = new AlertEngine({ store, host: 'serving', now: () => T0 });
    healthy.receiver.answers.push(500);
    await store.appendEvents(failed('run_due').events);
    await serving.pump();
    // Ten seconds on, the failed delivery is due again; `alerts test` runs in a CLI process then.
    const cli = new AlertEngine({ store, host: 'cli', now: () => T0 + 10_000 });
    const tested = await cli.test(rule.id);
    await cli.idle();
    expect([tested!.kind, tested!.status]).toEqual(['test', 'sent']);
    expect(healthy.receiver.bodies().map((b) => b.kind)).toEqual(['fire', 'test']);
    const [fire] = (await deliveriesOf(store, rule.id)).filter((d) => d.kind === 'fire');
    expect([fire!.status, fire!.attempts]).toEqual(['failed', 1]);
  });
});
