import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../service.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule, removeAlertRule } from './alerts-api.js';
import { startAlerts } from './alerts-host.js';
import { AlertEngine } from './engine.js';
import { failedRunEvents, TestReceiver } from './testing.js';

/**
 * An alert delivery reaches the windows when it is stored or posted, not on their next read: the
 * engine tells its host once per pass that stored deliveries (as a desktop change only when a
 * desktop rule fired) and once per POST recorded, and a service's host passes as soon as its
 * journal tail reads another process's failure, with the alerts' own timer stopped so that only
 * the telling can explain what the test sees. Real stores (SQLite, and PostgreSQL where
 * installed), a real receiver.
 */

const harness = testEngines('alerts-deliveries-told');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());
const tempDir = tempDirs();

const T0 = Date.UTC(2026, 11, 1, 9, 0);
const NEVER = (): (() => void) => () => undefined;
const opened: { stores: HivewatchStore[]; services: HivewatchService[]; receivers: TestReceiver[] } = { stores: [], services: [], receivers: [] };
afterEach(async () => {
  await Promise.all(opened.services.splice(0).map((s) => s.close()));
  await Promise.all(opened.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(opened.stores.splice(0).map((s) => s.close()));
});

const failedRun = (runId: string): HivewatchEvent[] => failedRunEvents(runId, T0);

for (const engine of harness.engines) {
  describe(`alert deliveries told at once on ${engine.name}`, () => {
    it('tells once per pass that stored deliveries (desktop when a desktop rule fired) and once per POST recorded', async () => {
      const store = await openStore({ path: await engine.fresh() });
      opened.stores.push(store);
      const receiver = new TestReceiver();
      opened.receivers.push(receiver);
      const url = await receiver.start();
      const told: boolean[] = [];
      const alerts = new AlertEngine({ store, host: 'host-a', onDeliveries: (change) => told.push(change.desktop) });
      const desktop = await addAlertRule(store, { when: 'run-failed', desktop: true, throttle: '0' }, 'test', T0);
      await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0 + 1);

      // The pass stores both rules' deliveries (told once, desktop), then the webhook's POST is recorded.
      await store.appendEvents(failedRun('run_1'));
      await alerts.pump();
      expect(told).toEqual([true, false]);
      await store.appendEvents([...failedRun('run_2'), ...failedRun('run_3')]);
      await alerts.pump();
      expect(told).toEqual([true, false, true, false, false]);
      // A pass with nothing new tells nothing.
      await alerts.pump();
      expect(told).toHaveLength(5);

      // Only the webhook rule left: its deliveries are told, never as desktop ones.
      await removeAlertRule(store, desktop.id, T0 + 2);
      await store.appendEvents(failedRun('run_4'));
      await alerts.pump();
      expect(told).toEqual([true, false, true, false, false, false, false]);
      expect(receiver.requests).toHaveLength(4);
      const stored = await store.runStatements((d) => listDeliveries(d));
      expect(
        stored
          .filter((d) => d.status === 'desktop')
          .map((d) => d.subject)
          .sort(),
      ).toEqual(['run_1', 'run_2', 'run_3']);
    });
  });
}

describe('a host whose delivery listener throws', () => {
  it('logs it, tells the other listeners, and the pass goes on', async () => {
    const store = await openStore({ path: join(tempDir('hivewatch-deliveries-told-'), 'one.db') });
    opened.stores.push(store);
    const logged: string[] = [];
    const host = startAlerts(store, { scheduler: NEVER, log: (line) => logged.push(line) }, 'test')!;
    try {
      await host.engine.pump();
      await addAlertRule(store, { when: 'run-failed', desktop: true, throttle: '0' }, 'test', T0);
      host.onDeliveries(() => {
        throw new Error('the stream is gone');
      });
      const told = new Promise<boolean>((resolve) => host.onDeliveries((change) => resolve(change.desktop)));
      await store.appendEvents(failedRun('run_1'));
      expect(await told).toBe(true);
      await host.engine.pump();
      expect(logged).toEqual(['alerts: a delivery listener failed: the stream is gone']);
      expect((await store.runStatements((d) => listDeliveries(d))).map((d) => d.subject)).toEqual(['run_1']);
    } finally {
      await host.stop();
    }
  });
});

describe('a service tells its windows of a firing another process journaled', () => {
  it('passes when its tail reads the failure, with the alerts timer stopped, and tells its listeners', async () => {
    const path = join(tempDir('hivewatch-deliveries-told-'), 'shared.db');
    const store = await openStore({ path });
    opened.stores.push(store);
    let probe: () => void = () => undefined;
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      clock: 'virtual',
      alerts: { scheduler: NEVER },
      tailScheduler: (tick) => {
        probe = tick;
        return () => undefined;
      },
    });
    opened.services.push(service);
    await service.addAlertRule({ when: 'run-failed', desktop: true, throttle: '0' });
    const told = new Promise<void>((resolve) =>
      service.onAlertDeliveries((change) => {
        if (change.desktop) resolve();
      }),
    );

    // Another process on the same file: its commits reach this service only through the tail.
    const other = await openStore({ path });
    opened.stores.push(other);
    await other.appendEvents(failedRun('run_elsewhere'));
    probe();
    await service.probeJournal();
    await told;
    const feed = await service.listDesktopAlerts({ after: T0 - 1 });
    expect(feed.alerts.map((a) => [a.title, a.runId])).toEqual([['Alert: run failed', 'run_elsewhere']]);
  });
});
