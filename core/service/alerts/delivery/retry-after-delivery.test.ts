import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../../store/index.js';
import { testEngines } from '../../../store/testing/engines.js';
import { JournalBuilder } from '../../../store/testing/journal-builder.js';
import { listDeliveries } from '../alert-queries.js';
import { addAlertRule } from '../alerts-api.js';
import { AlertEngine } from '../engine.js';
import { ManualClock, TestReceiver, type Answer } from '../testing.js';

/**
 * A receiver's Retry-After on a 429 (what Slack sends) or a 503: the next attempt is no earlier
 * than it asks and no earlier than the retry schedule's own backoff, and never later than the
 * policy's longest delay (30 min). A real receiver on 127.0.0.1, every store engine, and a clock
 * the test moves: the retry is due when the test says, not after a sleep.
 */

const harness = testEngines('alerts_retry_after');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 26, 14, 5);

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

/** A rule, a failed run whose delivery the receiver answers with `first`; returns what the next attempt needs. */
async function firstAnswer(
  location: string,
  first: Answer,
): Promise<{ clock: ManualClock; engine: AlertEngine; receiver: TestReceiver; store: HivewatchStore }> {
  const clock = new ManualClock(T0);
  const store = await openStore({ path: location, now: clock.now });
  open.stores.push(store);
  const receiver = new TestReceiver();
  open.receivers.push(receiver);
  const url = await receiver.start();
  const engine = new AlertEngine({ store, now: clock.now, host: 'host-a' });
  await engine.pump();
  await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0);
  receiver.answers.push(first);
  const run = new JournalBuilder('run_limited', { flow: 'flows/a.prose', start: T0 })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
    .fail();
  await store.appendEvents(run.events);
  await engine.pump();
  return { clock, engine, receiver, store };
}

async function onlyDelivery(store: HivewatchStore) {
  const [row] = await store.runStatements((d) => listDeliveries(d));
  return row!;
}

/** Moves the clock to just before `at` (nothing is posted), then to `at` (the retry is posted and sent). */
async function retriedExactlyAt(s: { clock: ManualClock; engine: AlertEngine; receiver: TestReceiver; store: HivewatchStore }, at: number): Promise<void> {
  s.clock.value = at - 1;
  await s.engine.pump();
  expect(s.receiver.requests).toHaveLength(1);
  s.clock.value = at;
  await s.engine.pump();
  expect(s.receiver.requests).toHaveLength(2);
  const row = await onlyDelivery(s.store);
  expect([row.status, row.attempts]).toEqual(['sent', 2]);
}

for (const engine of harness.engines) {
  describe(`Retry-After on ${engine.name}`, () => {
    it('a 429 with Retry-After: 30 is tried again 30 s later, not at the 10 s backoff', async () => {
      const s = await firstAnswer(await engine.fresh(), { status: 429, headers: { 'retry-after': '30' } });
      const row = await onlyDelivery(s.store);
      expect([row.status, row.responseCode, row.nextAttemptAt - T0, row.lastError]).toEqual([
        'failed',
        429,
        30_000,
        'the receiver answered 429 and asked to wait 30 s',
      ]);
      await retriedExactlyAt(s, T0 + 30_000);
    });

    it("a 503 with an HTTP-date waits until that date by the receiver's own clock", async () => {
      // The receiver's clock reads 13:00 (an hour and five minutes behind ours); it asks for 13:02.
      const s = await firstAnswer(await engine.fresh(), {
        status: 503,
        headers: { date: 'Thu, 26 Nov 2026 13:00:00 GMT', 'retry-after': 'Thu, 26 Nov 2026 13:02:00 GMT' },
      });
      const row = await onlyDelivery(s.store);
      expect([row.status, row.responseCode, row.nextAttemptAt - T0]).toEqual(['failed', 503, 120_000]);
      await retriedExactlyAt(s, T0 + 120_000);
    });

    it('a Retry-After shorter than the backoff waits the backoff', async () => {
      const s = await firstAnswer(await engine.fresh(), { status: 429, headers: { 'retry-after': '2' } });
      expect((await onlyDelivery(s.store)).nextAttemptAt - T0).toBe(10_000);
      await retriedExactlyAt(s, T0 + 10_000);
    });

    it("a Retry-After of a day waits the policy's 30 min cap, and the error says so", async () => {
      const s = await firstAnswer(await engine.fresh(), { status: 429, headers: { 'retry-after': '86400' } });
      const row = await onlyDelivery(s.store);
      expect([row.nextAttemptAt - T0, row.lastError]).toEqual([30 * 60_000, 'the receiver answered 429 and asked to wait 86400 s; waiting the 1800 s cap']);
      await retriedExactlyAt(s, T0 + 30 * 60_000);
    });

    it('a Retry-After on any other status, or one that is no delay, leaves the schedule alone', async () => {
      const s = await firstAnswer(await engine.fresh(), { status: 500, headers: { 'retry-after': '120' } });
      expect((await onlyDelivery(s.store)).nextAttemptAt - T0).toBe(10_000);
      const t = await firstAnswer(await engine.fresh(), { status: 429, headers: { 'retry-after': 'in a while' } });
      const row = await onlyDelivery(t.store);
      expect([row.nextAttemptAt - T0, row.lastError]).toEqual([10_000, 'the receiver answered 429']);
    });
  });
}
