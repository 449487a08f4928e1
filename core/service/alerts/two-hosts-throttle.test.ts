import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { skipTitle } from '../../testing/skip.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * The throttle and the follow-up with two hosts on one PostgreSQL database, both pumping the same
 * journal at once: a storm of one flow's failures is one message, every other failure counted
 * exactly once into the next message (not once per host), and a run retried to success gets one
 * follow-up whichever host sees the success.
 */

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 120_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});

const T0 = Date.UTC(2026, 10, 26, 9, 0);
const STORM = 30;

const failed = (runId: string, start: number): JournalBuilder =>
  new JournalBuilder(runId, { flow: 'flows/a.prose', start })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
    .fail();

describe.skipIf(!postgresBinaries)(skipTitle('alert throttle and follow-up with two hosts on one PostgreSQL database', postgresMissing), () => {
  it('counts each throttled failure once into the next message and follows a retried run up once', async () => {
    const url = await databases.fresh('alerts_two_hosts_throttle');
    const clock = new ManualClock(T0);
    const receiver = new TestReceiver();
    const hook = await receiver.start();
    const a = await openStore({ path: url, now: clock.now });
    const b = await openStore({ path: url, now: clock.now });
    try {
      await addAlertRule(a, { when: 'run-failed', webhook: hook, throttle: '10m' }, 'test', T0);
      const hostA = new AlertEngine({ store: a, host: 'host-a', now: clock.now });
      const hostB = new AlertEngine({ store: b, host: 'host-b', now: clock.now });
      await Promise.all([hostA.pump(), hostB.pump()]);
      for (let i = 0; i < STORM; i++) await (i % 2 === 0 ? a : b).appendEvents(failed(`run_${String(i).padStart(2, '0')}`, T0).events);
      await Promise.all([hostA.pump(), hostB.pump(), hostA.pump(), hostB.pump()]);
      expect(receiver.bodies().map((body) => body.subject)).toEqual(['run_00']);

      clock.advance(11 * 60_000);
      await b.appendEvents(failed('run_late', clock.value).events);
      const retried = new JournalBuilder('run_00_again', { flow: 'flows/a.prose', start: clock.value, retryOf: 'run_00' })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete();
      await a.appendEvents(retried.events);
      await Promise.all([hostA.pump(), hostB.pump(), hostA.pump(), hostB.pump()]);

      const bodies = receiver.bodies();
      // The late fire and the follow-up are due together: either may be posted first.
      expect(bodies.map((body) => `${String(body.kind)} ${String(body.subject)}`).sort()).toEqual(['fire run_00', 'fire run_late', 'resolve run_00']);
      const late = bodies.find((body) => body.subject === 'run_late')!;
      expect(late.suppressed).toEqual({ count: STORM - 1, since: T0 });
      expect(late.text).toMatch(/ \(and 29 more since 09:00 UTC\)$/);
      expect(bodies.find((body) => body.kind === 'resolve')!.refersTo).toMatchObject({ id: bodies[0]!.delivery });
      const log = await a.runStatements((d) => listDeliveries(d, 1_000));
      expect(log.filter((d) => d.status === 'throttled')).toHaveLength(STORM - 1);
      expect(hostA.posted + hostB.posted).toBe(3);
    } finally {
      await receiver.stop();
      await a.close();
      await b.close();
    }
  });
});
