import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../service/conformance.suite.js';
import { createHivewatchService } from '../service/service.js';
import { openStore } from '../store/index.js';
import { costFlowSource, writeClaudeStandIn } from '../testing/claude-stand-in.js';
import { startOtlpReceiver } from './receive/receiver.js';
import { UNHURRIED_QUEUE } from './testing.js';

/**
 * No double counting: a claude-code preset attempt whose CLI (a stand-in subprocess,
 * core/testing/claude-stand-in.ts) both prints its result with `total_cost_usd` and exports its
 * `api_request` with the same `cost_usd` to the host's receiver. The spend shows in the attempt and
 * in the linked session, and counts once: the flow totals hold the attempts' results only.
 */

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('a preset attempt and its own telemetry', () => {
  it("count the attempt's spend once, through the attempt", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-usage-once-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const flows = join(dir, 'flows');
    mkdirSync(flows);
    writeFileSync(join(flows, 'cost.prose'), costFlowSource(writeClaudeStandIn(dir)));
    const store = await openStore({ path: join(dir, 'hw.db') });
    closers.push(() => store.close());
    const receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
    closers.push(() => receiver.close());
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      userFlowsDir: flows,
      telemetry: () => ({ endpoint: receiver.endpoint, token: receiver.token }),
    });
    closers.push(() => service.close());
    const { runId } = await service.startRun({ flow: 'user/cost.prose', virtualClock: true });
    expect((await service.whenFinished(runId))?.status).toBe('completed');

    // The telemetry reached the receiver from inside attempt 2 (its export is awaited before the result is printed).
    const links = await store.attemptTelemetry(runId);
    const task = (await store.getRun(runId))!.tasks[0]!;
    expect(links.map((l) => [l.taskId, l.attempt])).toEqual([[task.taskId, 2]]);
    const session = (await store.usage({ kind: 'runs', runIds: [links[0]!.runId] })).get(links[0]!.runId);
    expect(session).toMatchObject({ countedIn: { runId, taskId: task.taskId, attempt: 2 }, attempts: 1, inputTokens: 1500, outputTokens: 240 });
    expect(session!.costUsd).toBeCloseTo(0.25, 10);

    // Reported twice ($0.25 by the result, $0.25 by the telemetry), counted once.
    const byFlow = await store.usage({ kind: 'flows' });
    expect(byFlow.map((f) => f.flow)).toEqual(['user/cost.prose']);
    expect(byFlow[0]!.costUsd).toBeCloseTo(0.42, 10);
    expect(byFlow[0]!.failedCostUsd).toBeCloseTo(0.17, 10);
    const detail = await service.getRun({ runId });
    expect(detail!.run.usage).toMatchObject({ attempts: 2, failedAttempts: 1, countedIn: null });
    expect(detail!.tasks[0]!.attempts.map((a) => a.usage?.costUsd)).toEqual([0.17, 0.25]);
  });
});
