import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { EXAMPLES_DIR } from '../testing.js';
import { createHivewatchService, type HivewatchService } from '../service.js';
import { failingFlowsDir, TestReceiver } from './testing.js';

/**
 * Issues and alerts meet in the service: the issue watch journals a failing run's
 * error as a new issue, the hook hands the transition to the alert engine, and the rules for a new
 * issue, a regression and the resolve follow-up post to a real receiver. Each engine is tested
 * alone beside its code; this pins the wiring between them (service.ts).
 */

const tempDir = tempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function make(): Promise<{ service: HivewatchService; receiver: TestReceiver; hook: string }> {
  const dir = tempDir('hw-issue-alerts-');
  const userFlowsDir = failingFlowsDir(dir);
  const store = await openStore({ path: join(dir, 'hivewatch.db') });
  // No timers: the alert pumps and the issue passes follow this process's commits only.
  const never = () => () => undefined;
  const service = await createHivewatchService({
    store,
    examplesDir: EXAMPLES_DIR,
    userFlowsDir,
    clock: 'virtual',
    alerts: { scheduler: never },
    issueWatch: { scheduler: { every: never } },
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

async function failOnce(service: HivewatchService): Promise<void> {
  const { runId } = await service.startRun({ flow: 'user/fails.prose' });
  await vi.waitFor(async () => expect((await service.getRun({ runId }))?.run.status).toBe('failed'), { timeout: 30_000 });
}

describe('issue transitions reach the alert rules', () => {
  it('a new issue alerts, resolving it sends the follow-up, and its return alerts as a regression', async () => {
    const { service, receiver, hook } = await make();
    await service.addAlertRule({ when: 'new-issue', webhook: `${hook}/new`, throttle: '0' });
    await service.addAlertRule({ when: 'regression', webhook: `${hook}/regression`, format: 'slack', throttle: '0' });

    await failOnce(service);
    await vi.waitFor(() => expect(receiver.requests.map((r) => r.path)).toEqual(['/new']), { timeout: 10_000 });
    expect(receiver.bodies()[0]).toMatchObject({ kind: 'fire', title: expect.stringMatching(/^New issue: RUNTIME_CRASHED · /) as string });
    const [issue] = (await service.listIssues({})).items;
    expect(issue?.status).toBe('unresolved');

    await service.setIssueStatus({ id: issue!.id, action: 'resolve' });
    await vi.waitFor(() => expect(receiver.requests.map((r) => r.path)).toEqual(['/new', '/new']), { timeout: 10_000 });
    expect(receiver.bodies()[1]).toMatchObject({ kind: 'resolve' });

    await failOnce(service);
    await vi.waitFor(() => expect(receiver.requests.map((r) => r.path)).toEqual(['/new', '/new', '/regression']), { timeout: 10_000 });
    const slack = receiver.bodies<{ text: string; blocks: unknown[] }>()[2]!;
    expect(slack.text).toMatch(/^Regression: RUNTIME_CRASHED · /);
    expect(slack.blocks.length).toBeGreaterThan(0);
    expect(await service.getIssue({ id: issue!.id })).toMatchObject({ status: 'unresolved', substatus: 'regressed' });
  });
});
