import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../../base/approval-wait.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * `approval-pending-longer-than=N` against a real webhook receiver on 127.0.0.1, on every store
 * engine, with a clock the test moves (no sleeps): nothing before N, one delivery once the prompt
 * has waited past N, never twice for the same prompt, again for the run's next prompt, and none
 * for a run of another flow than the rule names.
 */

const harness = testEngines('approval_alerts');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 29, 6, 0);
const MINUTE = 60_000;

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

function prompt(run: JournalBuilder, label: string, since: number): void {
  run.push({
    type: 'externalEvent',
    name: APPROVAL_REQUESTED,
    known: true,
    taskId: '1:0',
    attributes: { tool: label.split('(')[0], label, since, via: 'claude_code.hook_execution_start' },
  });
}

function waitingRun(runId: string, flow: string): JournalBuilder {
  const run = new JournalBuilder(runId, { flow, flowName: flow, start: T0 }).start();
  run.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'prompt 1' }] });
  run.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 });
  prompt(run, 'Bash(rm -rf build)', T0 + MINUTE);
  return run;
}

for (const engine of harness.engines) {
  describe(`approval-pending-longer-than on ${engine.name}`, () => {
    it('fires once a prompt has waited past N, once per prompt, only for the flow the rule names', async () => {
      const clock = new ManualClock(T0);
      const store = await openStore({ path: await engine.fresh(), now: clock.now });
      open.stores.push(store);
      const receiver = new TestReceiver();
      open.receivers.push(receiver);
      const url = await receiver.start();
      const alerts = new AlertEngine({ store, now: clock.now, host: 'host-a' });
      await alerts.pump();
      await addAlertRule(store, { when: 'approval-pending-longer-than=10m', flow: 'external:claude-code', webhook: `${url}/hook`, throttle: '0' }, 'test', T0);

      const run = waitingRun('run-wait', 'external:claude-code');
      await store.appendEvents([...run.events, ...waitingRun('run-other', 'external:codex-cli').events]);
      clock.value = T0 + MINUTE + 10 * MINUTE;
      await alerts.pump();
      expect(receiver.requests).toHaveLength(0);

      clock.value = T0 + MINUTE + 10 * MINUTE + 1;
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies()).toMatchObject([
        {
          kind: 'fire',
          rule: { condition: 'approval-pending-longer-than' },
          subject: 'run-wait',
          facts: { runId: 'run-wait', tool: 'Bash(rm -rf build)', pendingSince: T0 + MINUTE },
        },
      ]);
      expect(receiver.bodies()[0]!.title).toBe('Run run-wait of external:claude-code is waiting for approval of Bash(rm -rf build) for 10 min');

      // The prompt is answered; a second one waits 11 minutes: a second delivery.
      const before = run.events.length;
      run.push({
        type: 'externalEvent',
        name: APPROVAL_ENDED,
        known: true,
        taskId: '1:0',
        attributes: {
          tool: 'Bash',
          label: 'Bash(rm -rf build)',
          since: T0 + MINUTE,
          waitedMs: 11 * MINUTE,
          decision: 'accept',
          source: 'user_temporary',
          byPerson: true,
          via: 'claude_code.tool_decision',
        },
      });
      prompt(run, 'Write', T0 + 20 * MINUTE);
      await store.appendEvents(run.events.slice(before));
      clock.value = T0 + 31 * MINUTE;
      await alerts.pump();
      expect(receiver.bodies().map((b) => (b.facts as { tool: string }).tool)).toEqual(['Bash(rm -rf build)', 'Write']);
    });
  });
}
