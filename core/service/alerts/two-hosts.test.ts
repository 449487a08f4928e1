import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { skipTitle } from '../../testing/skip.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { TestReceiver } from './testing.js';

/**
 * Two hosts on one PostgreSQL database: two stores (each its own pool and host lease), two alert
 * engines pumping at the same time over the same journal. Each alert reaches the receiver once:
 * both evaluate every event, the unique (rule, subject, occurrence) keeps one delivery row, and
 * a claim (FOR UPDATE SKIP LOCKED) gives each row to one host.
 */

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 120_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});

const RUNS = 40;
const T0 = Date.UTC(2026, 10, 26, 9, 0);

describe.skipIf(!postgresBinaries)(skipTitle('alerts with two hosts on one PostgreSQL database', postgresMissing), () => {
  it('delivers each alert once: both evaluate every event, a delivery one host is posting is skipped by the other', async () => {
    const url = await databases.fresh('alerts_two_hosts');
    const receiver = new TestReceiver();
    const hook = await receiver.start();
    const a = await openStore({ path: url, now: () => T0 });
    const b = await openStore({ path: url, now: () => T0 });
    try {
      await addAlertRule(a, { when: 'run-failed', webhook: hook, throttle: '0' }, 'test', T0);
      const hostA = new AlertEngine({ store: a, host: 'host-a', now: () => T0 });
      const hostB = new AlertEngine({ store: b, host: 'host-b', now: () => T0 });
      await Promise.all([hostA.pump(), hostB.pump()]);
      for (let i = 0; i < RUNS; i++) {
        const run = new JournalBuilder(`run_${String(i).padStart(2, '0')}`, { flow: 'flows/a.prose', start: T0 })
          .start()
          .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
          .fail();
        await (i % 2 === 0 ? a : b).appendEvents(run.events);
      }
      // Host a claims the first delivery and its POST is held by the receiver: host b, pumping
      // meanwhile, evaluates the same events (inserting nothing new) and skips the leased row.
      receiver.answers.push('hang');
      const pumpA = hostA.pump();
      await vi.waitFor(() => expect(receiver.requests).toHaveLength(1), { timeout: 10_000 });
      await Promise.all([hostB.pump(), hostB.pump()]);
      expect(hostB.posted).toBe(RUNS - 1);
      receiver.release(200);
      await pumpA;
      await Promise.all([hostA.pump(), hostB.pump()]);
      const subjects = receiver.bodies().map((body) => body.subject as string);
      expect(subjects).toHaveLength(RUNS);
      expect(new Set(subjects).size).toBe(RUNS);
      expect(hostA.posted + hostB.posted).toBe(RUNS);
      expect([hostA.posted, hostB.posted]).toEqual([1, RUNS - 1]);
      const log = await a.runStatements((d) => listDeliveries(d, 1_000));
      expect(log.filter((d) => d.status === 'sent')).toHaveLength(RUNS);
      expect(log.every((d) => d.attempts === 1)).toBe(true);
    } finally {
      await receiver.stop();
      await a.close();
      await b.close();
    }
  });
});
