import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { ALERTS_CURSOR_KEY, listDeliveries } from './alert-queries.js';
import { addAlertRule, removeAlertRule } from './alerts-api.js';
import { startAlerts } from './alerts-host.js';
import { AlertEngine, mayAlert } from './engine.js';
import { failedRunEvents, TestReceiver } from './testing.js';

/**
 * A database without alert rules costs the write path nothing: a pass does
 * not read the journal or move the cursor, a batch without an event an alert can come from
 * starts no pass, and a rule added later is evaluated from its creation on, not from wherever
 * the cursor was left. Real stores (SQLite, and PostgreSQL where installed), a real receiver.
 */

const harness = testEngines('alerts-no-rules');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());
const tempDir = tempDirs();

const T0 = Date.UTC(2026, 10, 26, 9, 0);
const opened: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(opened.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(opened.stores.splice(0).map((s) => s.close()));
});

const failedRun = (runId: string): HivewatchEvent[] => failedRunEvents(runId, T0);

async function receiver(): Promise<{ receiver: TestReceiver; url: string }> {
  const r = new TestReceiver();
  opened.receivers.push(r);
  return { receiver: r, url: await r.start() };
}

for (const engine of harness.engines) {
  describe(`alerts without rules on ${engine.name}`, () => {
    it('a pass reads no journal and leaves the cursor where the last rule left it', async () => {
      const store = await openStore({ path: await engine.fresh() });
      opened.stores.push(store);
      const { url } = await receiver();
      const alerts = new AlertEngine({ store, host: 'host-a' });
      const rule = await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0);
      await store.appendEvents(failedRun('run_1'));
      await alerts.pump();
      const followed = await store.getSetting(ALERTS_CURSOR_KEY);
      expect(Number(followed)).toBe(await store.journalHead());

      await removeAlertRule(store, rule.id, T0);
      await store.appendEvents(failedRun('run_2'));
      await alerts.pump();
      expect(await store.getSetting(ALERTS_CURSOR_KEY)).toBe(followed);
      expect(await store.journalHead()).toBeGreaterThan(Number(followed));
    });

    it('a rule added after a time without rules fires for what is journaled from its creation on, not before', async () => {
      const store = await openStore({ path: await engine.fresh() });
      opened.stores.push(store);
      const { receiver: hook, url } = await receiver();
      const alerts = new AlertEngine({ store, host: 'host-a' });
      const first = await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0);
      await alerts.pump();
      await removeAlertRule(store, first.id, T0);
      await store.appendEvents(failedRun('run_before'));
      await alerts.pump();

      await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0);
      await store.appendEvents(failedRun('run_after'));
      await alerts.pump();
      expect(hook.bodies().map((b) => b.subject)).toEqual(['run_after']);
      const fired = (await store.runStatements((d) => listDeliveries(d))).filter((d) => d.status === 'sent');
      expect(fired.map((d) => d.subject)).toEqual(['run_after']);
    });
  });
}

describe('the alerts host after a commit', () => {
  it('a batch without an event an alert can come from starts no pass; a failed run does', async () => {
    const store = await openStore({ path: join(tempDir('hw-alerts-nudge-'), 'hivewatch.db') });
    opened.stores.push(store);
    const { receiver: hook, url } = await receiver();
    await addAlertRule(store, { when: 'run-failed', webhook: url, throttle: '0' }, 'test', T0);
    // A store that counts what the engine asks of it.
    let asked = 0;
    const counted = new Proxy(store, {
      get(target, property, receiverObject) {
        const value = Reflect.get(target, property, receiverObject) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property !== 'subscribe') asked += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const host = startAlerts(counted, { scheduler: () => () => undefined }, 'test')!;
    try {
      await host.engine.pump();
      asked = 0;
      const started = new JournalBuilder('run_busy', { flow: 'flows/a.prose', start: T0 }).start().events;
      expect(mayAlert(started)).toBe(false);
      await store.appendEvents(started);
      // SQLite tells its listeners inside appendEvents; a pass would have begun by the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(asked).toBe(0);

      const failed = failedRun('run_bad');
      expect(mayAlert(failed)).toBe(true);
      await store.appendEvents(failed);
      await vi.waitFor(() => expect(hook.bodies().map((b) => b.subject)).toEqual(['run_bad']), { timeout: 10_000 });
      expect(asked).toBeGreaterThan(0);
    } finally {
      await host.stop();
    }
  });
});
