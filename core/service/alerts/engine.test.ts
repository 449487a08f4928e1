import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * The alert engine against a real webhook receiver on 127.0.0.1, on every store engine (SQLite,
 * and PostgreSQL where it is installed): what fires, exactly once, throttled, followed up,
 * retried on the engine's schedule (a clock the test moves: no sleeps), and given a bounded
 * time per POST.
 */

const harness = testEngines('alerts');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 26, 14, 5);

interface Setup {
  store: HivewatchStore;
  engine: AlertEngine;
  clock: ManualClock;
  receiver: TestReceiver;
  url: string;
}

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

async function setup(location: string, timeoutMs?: number): Promise<Setup> {
  const clock = new ManualClock(T0);
  const store = await openStore({ path: location, now: clock.now });
  open.stores.push(store);
  const receiver = new TestReceiver();
  open.receivers.push(receiver);
  const url = await receiver.start();
  const engine = new AlertEngine({ store, now: clock.now, host: 'host-a', ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  await engine.pump(); // takes the journal's head as where alerting starts
  return { store, engine, clock, receiver, url };
}

function failedRun(runId: string, options: { flow?: string; retryOf?: string; start?: number } = {}): JournalBuilder {
  return new JournalBuilder(runId, { flow: options.flow ?? 'flows/a.prose', start: options.start ?? T0, retryOf: options.retryOf ?? null })
    .start()
    .runStep([
      {
        attempts: [
          { code: 'RUNTIME_TIMEOUT', message: 'agent timed out' },
          { code: 'RUNTIME_TIMEOUT', message: 'agent timed out' },
        ],
      },
    ])
    .fail();
}

for (const engine of harness.engines) {
  describe(`alert engine on ${engine.name}`, () => {
    it('run-failed: one delivery for a run that failed for good, none for a run whose failed attempt was retried to success', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: `${s.url}/hook?token=abc`, throttle: '0' }, 'test', T0);
      await s.store.appendEvents(failedRun('run_bad').events);
      const recovered = new JournalBuilder('run_ok', { flow: 'flows/a.prose', start: T0 })
        .start()
        .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }, 'ok'] }])
        .complete();
      await s.store.appendEvents(recovered.events);
      await s.engine.pump();
      await s.engine.pump(); // a second pass finds nothing new to post
      expect(s.receiver.requests).toHaveLength(1);
      const [body] = s.receiver.bodies();
      expect(body).toMatchObject({
        kind: 'fire',
        rule: { condition: 'run-failed' },
        subject: 'run_bad',
        facts: { runId: 'run_bad', code: 'RUNTIME_TIMEOUT', flow: 'flows/a.prose' },
      });
      expect(s.receiver.requests[0]!.path).toBe('/hook?token=abc');
      expect(s.receiver.requests[0]!.headers['x-hivewatch-delivery']).toBe(body!.delivery);
      const log = await s.store.runStatements((d) => listDeliveries(d));
      expect(log.map((d) => [d.status, d.responseCode, d.attempts])).toEqual([['sent', 200, 1]]);
    });

    it('run-failed with --flow and --code fires only for runs that match both', async () => {
      const s = await setup(await engine.fresh());
      // Flows a rule can name before any run of them: two bundled examples.
      await addAlertRule(
        s.store,
        { when: 'run-failed', flow: 'examples/02-rate-limited-api.prose', code: 'RUNTIME_TIMEOUT', webhook: s.url, throttle: '0' },
        'test',
        T0,
      );
      await s.store.appendEvents(failedRun('run_a1', { flow: 'examples/01-happy-path.prose' }).events);
      await s.store.appendEvents(failedRun('run_b1', { flow: 'examples/02-rate-limited-api.prose' }).events);
      await s.engine.pump();
      expect(s.receiver.bodies().map((b) => b.subject)).toEqual(['run_b1']);
    });

    it('new-issue through onIssueTransition: one Slack-compatible body, the same transition twice still one', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'new-issue', webhook: s.url, format: 'slack' }, 'test', T0);
      const transition = {
        fingerprint: 'ff4c34b8',
        title: 'RUNTIME_RATE_LIMIT · runtime fake was rate limited: <n> Too Many Requests',
        kind: 'new',
        at: T0,
        by: 'host-a',
      } as const;
      await s.engine.onIssueTransition(transition);
      await s.engine.onIssueTransition(transition);
      await s.engine.pump();
      expect(s.receiver.requests).toHaveLength(1);
      const body = s.receiver.bodies<{ text: string; blocks: { type: string; text?: { type: string; text: string } }[] }>()[0]!;
      expect(body.text).toBe('New issue: RUNTIME_RATE_LIMIT · runtime fake was rate limited: &lt;n&gt; Too Many Requests');
      expect(body.blocks.map((b) => b.type)).toEqual(['section', 'context']);
      expect(body.blocks[0]!.text).toEqual({ type: 'mrkdwn', text: `*${body.text}*` });
      expect(Object.keys(body).sort()).toEqual(['blocks', 'text']);
    });

    it('throttle: one message per rule and flow per interval, the rest counted into the next one', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '10m' }, 'test', T0);
      for (const [i, id] of ['run_t1', 'run_t2', 'run_t3', 'run_t4', 'run_t5'].entries()) {
        s.clock.advance(i === 0 ? 0 : 60_000);
        await s.store.appendEvents(failedRun(id, { start: s.clock.value }).events);
        await s.engine.pump();
      }
      expect(s.receiver.requests).toHaveLength(1);
      s.clock.value = T0 + 11 * 60_000;
      await s.store.appendEvents(failedRun('run_t6', { start: s.clock.value }).events);
      await s.engine.pump();
      expect(s.receiver.bodies().map((b) => b.subject)).toEqual(['run_t1', 'run_t6']);
      const next = s.receiver.bodies()[1]!;
      expect(next.suppressed).toEqual({ count: 4, since: T0 + 60_000 });
      expect(next.text).toMatch(/ \(and 4 more since 14:06 UTC\)$/);
    });

    it('throttle: a storm evaluated in one millisecond with its message is counted into the next message', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '10m' }, 'test', T0);
      for (const id of ['run_s1', 'run_s2', 'run_s3', 'run_s4']) await s.store.appendEvents(failedRun(id).events);
      await s.engine.pump();
      s.clock.value = T0 + 11 * 60_000;
      await s.store.appendEvents(failedRun('run_s5', { start: s.clock.value }).events);
      await s.engine.pump();
      expect(s.receiver.bodies().map((b) => b.subject)).toEqual(['run_s1', 'run_s5']);
      expect(s.receiver.bodies()[1]!.suppressed).toEqual({ count: 3, since: T0 });
    });

    it('resolve follow-up: a failed run retried to success gets a second delivery that refers to the first', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '0' }, 'test', T0);
      await s.store.appendEvents(failedRun('run_first').events);
      await s.engine.pump();
      const retried = new JournalBuilder('run_second', { flow: 'flows/a.prose', start: T0 + 60_000, retryOf: 'run_first' })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete();
      await s.store.appendEvents(retried.events);
      await s.engine.pump();
      const [fire, resolve] = s.receiver.bodies();
      expect(resolve).toMatchObject({ kind: 'resolve', subject: 'run_first', refersTo: { id: fire!.delivery, title: fire!.title } });
      expect(resolve!.text).toBe(`Resolved: ${String(fire!.title)}`);
      expect(s.receiver.requests).toHaveLength(2);
    });

    it('a receiver that answers 500 gets the delivery on retry, at the time the engine retry schedule says', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '0' }, 'test', T0);
      s.receiver.answers.push(500);
      await s.store.appendEvents(failedRun('run_r').events);
      await s.engine.pump();
      let [row] = await s.store.runStatements((d) => listDeliveries(d));
      expect([row!.status, row!.responseCode, row!.attempts, row!.nextAttemptAt - T0]).toEqual(['failed', 500, 1, 10_000]);
      s.clock.advance(9_999);
      await s.engine.pump();
      expect(s.receiver.requests).toHaveLength(1);
      s.clock.advance(1);
      await s.engine.pump();
      [row] = await s.store.runStatements((d) => listDeliveries(d));
      expect([row!.status, row!.responseCode, row!.attempts]).toEqual(['sent', 200, 2]);
      expect(s.receiver.requests.map((r) => r.headers['x-hivewatch-attempt'])).toEqual(['1', '2']);
    });

    it('a receiver that never answers costs one bounded POST and the delivery waits for its retry', async () => {
      const s = await setup(await engine.fresh(), 200);
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '0' }, 'test', T0);
      s.receiver.answers.push('hang');
      await s.store.appendEvents(failedRun('run_h').events);
      await s.engine.pump();
      const [row] = await s.store.runStatements((d) => listDeliveries(d));
      expect([row!.status, row!.responseCode, row!.lastError]).toEqual(['failed', null, 'no answer within 200 ms']);
    });

    it('a 404 is given up at once: the receiver will not get better by itself', async () => {
      const s = await setup(await engine.fresh());
      await addAlertRule(s.store, { when: 'run-failed', webhook: s.url, throttle: '0' }, 'test', T0);
      s.receiver.answers.push(404);
      await s.store.appendEvents(failedRun('run_404').events);
      await s.engine.pump();
      const [row] = await s.store.runStatements((d) => listDeliveries(d));
      expect([row!.status, row!.responseCode]).toEqual(['given-up', 404]);
    });
  });
}
