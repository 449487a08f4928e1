import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule } from './alerts-api.js';
import { startAlerts } from './alerts-host.js';
import { failedRunEvents, TestReceiver } from './testing.js';

/**
 * Closing a serving host while its receiver holds a POST: closing waits for that POST to end and
 * starts no other, so it costs one bounded POST, not one per due delivery (up to 50 a pass).
 * The deliveries not posted stay pending for the next host. A real receiver, a real SQLite file.
 *
 * The receiver answers the held POST only once the host is closing: the order is set by events,
 * not by a timeout racing the test (with a short POST timeout, a loaded machine let the first POST
 * time out and the second start before the test got to close the host).
 */

const tempDir = tempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the alerts host closing', () => {
  it('waits for the POST in flight only; the other due deliveries stay pending', async () => {
    const store = await openStore({ path: join(tempDir('hw-alerts-stop-'), 'hivewatch.db') });
    const receiver = new TestReceiver();
    const hook = await receiver.start();
    cleanups.push(
      () => store.close(),
      () => receiver.stop(),
    );
    await addAlertRule(store, { when: 'run-failed', webhook: hook, throttle: '0' }, 'test');
    receiver.answers.push('hang', 'hang', 'hang');
    // A ceiling only: the held POST ends when the test answers it, long before.
    const host = startAlerts(store, { timeoutMs: 120_000, scheduler: () => () => undefined }, 'test')!;
    await host.engine.pump(); // alerting starts at the journal's head
    // One batch: one pass evaluates the three failures, then starts posting them.
    const failed = (id: string) => failedRunEvents(id, Date.now());
    await store.appendEvents([...failed('run_1'), ...failed('run_2'), ...failed('run_3')]);
    await vi.waitFor(() => expect(receiver.requests).toHaveLength(1), { timeout: 30_000 });
    const closing = host.stop();
    receiver.release(503);
    await closing;
    expect(receiver.requests).toHaveLength(1);
    const statuses = (await store.runStatements((d) => listDeliveries(d))).map((d) => d.status).sort();
    expect(statuses).toEqual(['failed', 'pending', 'pending']);
  });
});
