import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { EXAMPLES_DIR } from '../testing.js';
import { createHivewatchService } from '../service.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { failingFlowsDir, TestReceiver } from './testing.js';

/**
 * A process that does not deliver (`alerts: false`, as `hivewatch run` and the bulk commands
 * open their service) posts nothing and evaluates no journal, yet its issue watch may be the one
 * that journals a failing run's error as a new issue: no other host will be told of that row, so
 * the new-issue alert must be queued here. A serving host's engine then posts it, and the run's
 * own failure, once each. A real failing run (the fake runtime in a subprocess), a real receiver.
 */

const tempDir = tempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a host that does not deliver alerts', () => {
  it('queues the alert of the issue it announced, posts nothing, and a serving host posts each alert once', async () => {
    const dir = tempDir('hw-non-delivering-');
    const userFlowsDir = failingFlowsDir(dir);
    const store = await openStore({ path: join(dir, 'hivewatch.db') });
    const receiver = new TestReceiver();
    const hook = await receiver.start();
    cleanups.push(
      () => store.close(),
      () => receiver.stop(),
    );
    await addAlertRule(store, { when: 'new-issue', webhook: `${hook}/new`, throttle: '0' }, 'test');
    await addAlertRule(store, { when: 'run-failed', webhook: `${hook}/failed`, throttle: '0' }, 'test');
    // The serving host has been up: alerting starts here, before the run.
    const serving = new AlertEngine({ store, host: 'serving' });
    await serving.pump();

    const never = () => () => undefined;
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      userFlowsDir,
      clock: 'virtual',
      alerts: false,
      issueWatch: { scheduler: { every: never } },
    });
    const { runId } = await service.startRun({ flow: 'user/fails.prose' });
    await vi.waitFor(async () => expect((await service.getRun({ runId }))?.run.status).toBe('failed'), { timeout: 30_000 });
    await vi.waitFor(async () => expect((await store.runStatements((d) => listDeliveries(d))).map((d) => d.kind)).toEqual(['fire']), { timeout: 10_000 });
    await service.close();
    expect(receiver.requests).toEqual([]);

    await serving.pump();
    await serving.pump();
    expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/failed', '/new']);
    expect(receiver.bodies().find((b) => b.subject === runId)).toMatchObject({ kind: 'fire', rule: { condition: 'run-failed' } });
  });
});
