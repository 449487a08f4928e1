import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { EXAMPLES_DIR } from '../testing.js';
import { createHivewatchService, type HivewatchService } from '../service.js';
import { failingFlowsDir, TestReceiver } from './testing.js';

/**
 * Alerts through the service's API (what the window calls): the same refusals as the CLI, a
 * redacted rule list, and a real failing run (the fake runtime in a subprocess) whose alert goes
 * to a receiver that does not answer: the run ends failed all the same, the POST waits on its own.
 */

const tempDir = tempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function make(): Promise<{ service: HivewatchService; receiver: TestReceiver; hook: string }> {
  const dir = tempDir('hw-alerts-service-');
  const userFlowsDir = failingFlowsDir(dir);
  const store = await openStore({ path: join(dir, 'hivewatch.db') });
  // No timer: pumps follow this process's commits only, so nothing runs the test did not cause.
  const service = await createHivewatchService({
    store,
    examplesDir: EXAMPLES_DIR,
    userFlowsDir,
    clock: 'virtual',
    alerts: { scheduler: () => () => undefined },
  });
  const receiver = new TestReceiver();
  const hook = await receiver.start();
  cleanups.push(
    () => store.close(),
    () => service.close(),
    () => receiver.stop(),
  );
  return { service, receiver, hook };
}

describe('alerts API', () => {
  it('refuses bad input with the CLI messages as 400s and lists rules with the webhook redacted', async () => {
    const { service } = await make();
    await expect(service.addAlertRule({ when: 'run-crashed', webhook: 'https://example.com/' })).rejects.toMatchObject({
      status: 400,
      apiCode: 'invalid_input',
      message:
        'unknown alert condition "run-crashed" (one of: run-failed, new-issue, regression, escalating, retrying-longer-than, retrying-more-than, running-longer-than, usage-limit, session-failed, approval-pending-longer-than, telemetry-silent-longer-than)',
    });
    await expect(service.addAlertRule({ when: 'run-failed', webhook: 'file:///etc/passwd' })).rejects.toMatchObject({
      status: 400,
      message: '--webhook must be an http or https URL, not file:',
    });
    await expect(service.addAlertRule({ when: 'running-longer-than=1x', webhook: 'https://example.com/' })).rejects.toMatchObject({
      status: 400,
      message: 'running-longer-than needs a duration like running-longer-than=10m, got "running-longer-than=1x"',
    });
    await expect(service.addAlertRule({ when: 'run-failed' })).rejects.toMatchObject({
      status: 400,
      message: 'an alert rule needs somewhere to deliver: --webhook URL, --desktop, or both',
    });
    await expect(service.addAlertRule({ when: 'run-failed', desktop: false, webhook: '' })).rejects.toMatchObject({
      status: 400,
      message: 'webhook: must not be empty',
    });
    const desktop = await service.addAlertRule({ when: 'approval-pending-longer-than=10m', desktop: true });
    expect(desktop).toMatchObject({ webhook: null, desktop: true, channels: 'desktop' });
    // A window's first read of the desktop feed is its start: nothing that fired before it opened.
    expect(await service.listDesktopAlerts({})).toEqual({ alerts: [], through: expect.any(Number) as number });
    await service.removeAlertRule({ id: desktop.id });
    await expect(service.removeAlertRule({ id: 'alr_00000000' })).rejects.toMatchObject({ status: 404, apiCode: 'alert_rule_not_found' });
    const rule = await service.addAlertRule({ when: 'run-failed', webhook: 'https://hooks.example.com/services/T1/B2/secret?token=t0ken' });
    expect(rule).toMatchObject({ webhook: 'https://hooks.example.com/…', desktop: false, channels: 'webhook', createdBy: 'window', throttleMs: 600_000 });
    expect(JSON.stringify(await service.listAlertRules())).not.toMatch(/secret|t0ken|services/);
  });

  it('a failed run alerts once; a receiver that never answers does not hold the run, and the delivery log shows it', async () => {
    const { service, receiver, hook } = await make();
    const rule = await service.addAlertRule({ when: 'run-failed', webhook: `${hook}/alerts`, throttle: '0' });
    receiver.answers.push('hang');
    const { runId } = await service.startRun({ flow: 'user/fails.prose' });
    await vi.waitFor(async () => expect((await service.getRun({ runId }))?.run.status).toBe('failed'), { timeout: 30_000 });
    await vi.waitFor(() => expect(receiver.requests).toHaveLength(1), { timeout: 10_000 });
    expect(receiver.bodies()[0]).toMatchObject({ kind: 'fire', subject: runId, rule: { id: rule.id } });
    const [pending] = await service.listAlertDeliveries({});
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, ruleId: rule.id });
    receiver.release(204);
    await vi.waitFor(async () => expect((await service.listAlertDeliveries({}))[0]).toMatchObject({ status: 'sent', responseCode: 204 }), { timeout: 10_000 });
    const tested = await service.testAlertRule({ id: rule.id });
    expect(tested).toMatchObject({ kind: 'test', status: 'sent', responseCode: 200 });
    expect(receiver.requests).toHaveLength(2);
  });
});
