import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envelope, JournalBuilder } from '../../store/testing/journal-builder.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * The conditions beyond run-failed, on SQLite (the engines' parity is engine.test.ts's): a task
 * retrying too long or too often, a run running too long, a usage limit, a failed agent session,
 * and an issue that regresses after it was resolved (with its follow-up in between).
 */

const tempDir = tempDirs();
const T0 = Date.UTC(2026, 10, 26, 8, 0);
const opened: { store: HivewatchStore; receiver: TestReceiver }[] = [];
afterEach(async () => {
  for (const { store, receiver } of opened.splice(0)) {
    await receiver.stop();
    await store.close();
  }
});

async function setup(rules: { when: string; flow?: string }[]) {
  const clock = new ManualClock(T0);
  const store = await openStore({ path: join(tempDir('hw-alert-conditions-'), 'hivewatch.db'), now: clock.now });
  const receiver = new TestReceiver();
  opened.push({ store, receiver });
  const url = await receiver.start();
  for (const rule of rules) await addAlertRule(store, { ...rule, webhook: url, throttle: '0' }, 'test', T0);
  const engine = new AlertEngine({ store, now: clock.now, host: 'host-a' });
  await engine.pump();
  const conditions = (): string[] => receiver.bodies().map((b) => `${(b.rule as { condition: string }).condition} ${String(b.subject)}`);
  return { store, engine, clock, receiver, conditions };
}

describe('alert conditions', () => {
  it('retrying-longer-than and retrying-more-than fire once per task when their threshold is passed, not before', async () => {
    const s = await setup([{ when: 'retrying-longer-than=1m' }, { when: 'retrying-more-than=2' }]);
    const timeout = { code: 'RUNTIME_TIMEOUT' } as const;
    // Retries after 30 s (attempt 2 at +30 s), then 45 s (attempt 3 at about +75 s), then 45 s (attempt 4).
    const run = new JournalBuilder('run_retry', { start: T0 }).start().runStep([{ attempts: [timeout, timeout, timeout, 'ok'], delayMs: 30_000 }]);
    const events = run.complete().events;
    const firstRetry = events.findIndex((e) => e.type === 'retryScheduled');
    await s.store.appendEvents(events.slice(0, firstRetry + 1));
    await s.engine.pump();
    expect(s.conditions()).toEqual([]);
    await s.store.appendEvents(events.slice(firstRetry + 1));
    await s.engine.pump();
    expect(s.conditions().sort()).toEqual(['retrying-longer-than run_retry/1:0', 'retrying-more-than run_retry/1:0']);
  });

  it('running-longer-than fires for a run still running past the duration, once', async () => {
    // A rule names a flow before its run: a bundled example's id.
    const s = await setup([{ when: 'running-longer-than=1h', flow: 'examples/01-happy-path.prose' }]);
    await s.store.appendEvents(new JournalBuilder('run_long', { start: T0, flow: 'examples/01-happy-path.prose' }).start().events);
    await s.engine.pump();
    s.clock.advance(3_600_000);
    await s.engine.pump();
    expect(s.conditions()).toEqual([]);
    s.clock.advance(60_000);
    await s.engine.pump();
    await s.engine.pump();
    expect(s.conditions()).toEqual(['running-longer-than run_long']);
    expect(s.receiver.bodies()[0]!.title).toBe('Run run_long of examples/01-happy-path.prose has been running for over 60 min');
  });

  it('usage-limit fires on a retry timed by the runtime reset time; a policy backoff does not', async () => {
    const s = await setup([{ when: 'usage-limit' }]);
    const run = new JournalBuilder('run_limit', { start: T0 }).start();
    const ref = { step: 1, ordinal: 0, taskId: '1:0' };
    run.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'task 0' }] });
    run.push({ type: 'taskStarted', ...ref, name: 'task 0', agent: 'claude-code', maxAttempts: 3 });
    run.push({ type: 'retryScheduled', ...ref, attempt: 1, delayMs: 1_000, strategy: 'linear', nextAttemptAt: T0 + 1_000 });
    run.push({
      type: 'retryScheduled',
      ...ref,
      attempt: 2,
      delayMs: 3_600_000,
      strategy: 'runtime_reset_time',
      nextAttemptAt: T0 + 3_600_000,
      reason: "waiting for the runtime's reset time 2026-11-26T09:00:00.000Z",
    });
    await s.store.appendEvents(run.events);
    await s.engine.pump();
    expect(s.conditions()).toEqual(['usage-limit run_limit/1:0']);
    expect(s.receiver.bodies()[0]!.title).toBe(
      "Task 1:0 of run run_limit (examples/demo.prose) hit a usage limit: waiting for the runtime's reset time 2026-11-26T09:00:00.000Z",
    );
  });

  it('session-failed fires for an agent session that went quiet failed, and run-failed does not', async () => {
    const s = await setup([{ when: 'session-failed' }, { when: 'run-failed' }]);
    const session = new JournalBuilder('ext_claude_1', { start: T0 });
    session.push({
      type: 'runStarted',
      flow: 'agents/claude-code',
      flowName: 'claude-code session',
      options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: null },
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
      external: { origin: 'runtime:claude-code', sessionId: 's-1', source: 'claude-code 2.0' },
    });
    const error = envelope(
      { code: 'RUNTIME_CRASHED', message: 'the agent exited' },
      { project: null, flow: 'agents/claude-code', run: 'ext_claude_1', step: null, task: null, attempt: null },
      T0,
    );
    session.push({ type: 'externalRunIdle', quietMs: 60_000, lastEventAt: T0, error });
    await s.store.appendEvents(session.events);
    await s.engine.pump();
    expect(s.conditions()).toEqual(['session-failed ext_claude_1']);
  });

  it('an issue: new fires, resolved follows up the new-issue alert, regressed fires the regression rule', async () => {
    const s = await setup([{ when: 'new-issue' }, { when: 'regression' }]);
    const issue = { fingerprint: 'ab12cd34', title: 'RUNTIME_TIMEOUT · agent timed out after <n>s' };
    for (const [kind, by] of [
      ['new', 'host-a'],
      ['resolved', 'cli'],
      ['ignored', 'cli'],
      ['regressed', 'host-a'],
    ] as const) {
      await s.engine.onIssueTransition({ ...issue, kind, at: s.clock.value, by });
      s.clock.advance(60_000);
    }
    await s.engine.pump();
    const bodies = s.receiver.bodies();
    expect(bodies.map((b) => [b.kind, (b.rule as { condition: string }).condition])).toEqual([
      ['fire', 'new-issue'],
      ['resolve', 'new-issue'],
      ['fire', 'regression'],
    ]);
    expect(bodies[1]!.refersTo).toEqual({ id: bodies[0]!.delivery, title: 'New issue: RUNTIME_TIMEOUT · agent timed out after <n>s' });
    expect(bodies[2]!.text).toBe('Regression: RUNTIME_TIMEOUT · agent timed out after <n>s');
  });

  it('logs a failed delivery by id and rule, never with the webhook path or query', async () => {
    const clock = new ManualClock(T0);
    const store = await openStore({ path: join(tempDir('hw-alert-log-'), 'hivewatch.db'), now: clock.now });
    const receiver = new TestReceiver();
    opened.push({ store, receiver });
    const url = await receiver.start();
    const rule = await addAlertRule(store, { when: 'run-failed', webhook: `${url}/services/T0/B0/sekrit?token=t0ken`, throttle: '0' }, 'test', T0);
    const lines: string[] = [];
    const engine = new AlertEngine({ store, now: clock.now, host: 'host-a', log: (line) => lines.push(line) });
    await engine.pump();
    receiver.answers.push(503);
    await store.appendEvents(
      new JournalBuilder('run_logged', { start: T0 })
        .start()
        .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
        .fail().events,
    );
    await engine.pump();
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^alert delivery dlv_[0-9a-f]{22} \\(rule ${rule.id}\\) failed: the receiver answered 503$`))]);
    expect(lines.join('\n')).not.toMatch(/sekrit|t0ken|services/);
  });
});
