import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../core/service/api.js';
import { envelope, JournalBuilder } from '../testing/events.js';
import { applyToLiveRun, backoffsOf, type LiveRun } from './run-summary.js';
import { RunSequencer } from './sequencer.js';

function replay(events: readonly HivewatchEvent[]): LiveRun | undefined {
  let live: LiveRun | undefined;
  for (const e of events) live = applyToLiveRun(live, e);
  return live;
}

function rateLimitedRun(): JournalBuilder {
  const j = new JournalBuilder('run_a', 1_000);
  j.start('examples/02-rate-limited-api.prose', 50);
  j.add({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'Fetch' }] });
  j.add({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 'Fetch', agent: 'a', maxAttempts: 3 });
  j.add({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 1 });
  const error = envelope('RUNTIME_RATE_LIMIT', { message: '429' });
  j.add({ type: 'attemptFailed', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, durationMs: 5, error }, 1_005);
  j.add({ type: 'errorOccurred', error, caught: false, retrying: true, step: 1, ordinal: 0, taskId: '1:0' });
  j.add({ type: 'retryScheduled', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, delayMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: 31_005 });
  return j;
}

describe('applyToLiveRun', () => {
  it('marks an external run (agent telemetry) with its source, as the service does, and a flow run with none', () => {
    const j = new JournalBuilder('ext-claude-code-1', 1_000);
    const started = j.start('external:claude-code', 1) as Extract<HivewatchEvent, { type: 'runStarted' }>;
    expect(applyToLiveRun(undefined, started)?.summary.source).toBeUndefined();
    const external = { ...started, external: { origin: 'runtime:claude-code', sessionId: 's-1', source: 'claude-code 2.0.50' } };
    expect(applyToLiveRun(undefined, external)?.summary.source).toBe('runtime:claude-code');
  });

  it("shows an external session's usage-limit stop as its wait, until telemetry lifts it or the quiet period ends it, as the store does", () => {
    const j = new JournalBuilder('ext-claude-code-1', 1_000);
    const started = j.start('external:claude-code', 1) as Extract<HivewatchEvent, { type: 'runStarted' }>;
    j.events[0] = { ...started, external: { origin: 'runtime:claude-code', sessionId: 's-1', source: 'claude-code 2.1.332' } };
    j.add({ type: 'stepStarted', step: 1, frontier: [] });
    j.add({ type: 'taskStarted', step: 1, ordinal: 0, taskId: 'prompt-1', name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 });
    const reached = {
      type: 'externalLimitReached',
      step: 1,
      ordinal: 0,
      taskId: 'prompt-1',
      attempt: 1,
      resetAt: 9_000_000,
      reported: "You've hit your 5-hour limit · resets 3:17am (UTC)",
    } as const;
    j.add(reached);
    expect(replay(j.events)?.summary).toMatchObject({ status: 'running', waitingUntil: 9_000_000 });
    j.add({ type: 'externalLimitLifted', step: 1, ordinal: 0, taskId: 'prompt-1', resetAt: 9_000_000 });
    expect(replay(j.events)?.summary.waitingUntil).toBeNull();
    j.add(reached);
    j.add({ type: 'externalRunIdle', quietMs: 600_000, lastEventAt: 1_000 });
    expect(replay(j.events)?.summary).toMatchObject({ waitingUntil: null, retrying: null });
  });

  it("ends a quiet external session as the store's row does (failed with its ending error when its last prompt failed), and reopens it", () => {
    const j = new JournalBuilder('ext-claude-code-2', 1_000);
    j.start('external:claude-code', 1);
    j.add({ type: 'stepStarted', step: 1, frontier: [] });
    const error = envelope('RUNTIME_CRASHED', {
      message: 'the API refused the prompt',
      correlation: { project: null, flow: null, run: 'ext-claude-code-2', step: 1, task: 'prompt-1', attempt: 1 },
    });
    const occurred = j.add({ type: 'errorOccurred', error, caught: false, retrying: false, step: 1, ordinal: 0, taskId: 'prompt-1' });
    j.add({ type: 'externalRunIdle', quietMs: 600_000, lastEventAt: 1_000, error });
    const idle = replay(j.events)?.summary;
    expect(idle).toMatchObject({
      status: 'failed',
      endingError: { code: 'RUNTIME_CRASHED', rootCode: 'RUNTIME_CRASHED', taskId: 'prompt-1', chain: [{ seq: occurred.seq }] },
    });
    expect(idle?.endedAt).not.toBeNull();
    j.add({ type: 'externalRunReopened', idleSince: 1_000 });
    expect(replay(j.events)?.summary).toMatchObject({ status: 'running', endedAt: null, durationMs: null, endedWall: null, endingError: null });
    j.add({ type: 'externalRunIdle', quietMs: 600_000, lastEventAt: 2_000 });
    expect(replay(j.events)?.summary).toMatchObject({ status: 'completed', endingError: null });
  });

  it('makes a running external run a subagent when a later event names its parent, keeping the first parent named', () => {
    const j = new JournalBuilder('ext-codex-cli-child', 1_000);
    j.start('external:codex-cli', 1);
    expect(replay(j.events)?.summary.spawnedBy).toBeUndefined();
    const spawned = (runId: string): { type: 'externalRunSpawned'; spawnedBy: { runId: string; agentId: string; agentName: null } } => ({
      type: 'externalRunSpawned',
      spawnedBy: { runId, agentId: 'thread', agentName: null },
    });
    j.add(spawned('ext-codex-cli-parent'));
    j.add(spawned('ext-codex-cli-other'));
    expect(replay(j.events)?.summary).toMatchObject({ status: 'running', spawnedBy: 'ext-codex-cli-parent' });
  });

  it('creates the row from runStarted and ignores other first events', () => {
    const j = new JournalBuilder('run_a', 1_000);
    const started = j.start('examples/01-happy-path.prose', 7);
    expect(applyToLiveRun(undefined, { ...started, type: 'stepStarted', step: 1, frontier: [] } as HivewatchEvent)).toBeUndefined();
    const live = applyToLiveRun(undefined, started);
    expect(live?.summary).toMatchObject({
      id: 'run_a',
      flow: 'examples/01-happy-path.prose',
      flowName: '01-happy-path',
      status: 'running',
      startedAt: 1_000,
      step: 0,
      maxSteps: 7,
      attempts: 0,
      errorCount: 0,
      retrying: null,
    });
  });

  it('counts steps, attempts and errors and shows the retrying badge while in backoff', () => {
    const live = replay(rateLimitedRun().events);
    expect(live?.summary).toMatchObject({
      step: 1,
      attempts: 1,
      errorCount: 1,
      lastError: { code: 'RUNTIME_RATE_LIMIT', message: '429' },
      retrying: { taskId: '1:0', nextAttemptAt: 31_005, delayMs: 30_000 },
    });
  });

  it('clears the badge when the next attempt starts or the backoff is skipped', () => {
    const j = rateLimitedRun();
    j.add({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 2 }, 31_005);
    expect(replay(j.events)?.summary).toMatchObject({ retrying: null, attempts: 2 });

    const k = rateLimitedRun();
    k.add({ type: 'backoffSkipped', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, commandId: 'c1' });
    expect(replay(k.events)?.summary.retrying).toBeNull();
  });

  it('shows the earliest of several backoffs', () => {
    const j = rateLimitedRun();
    j.add({ type: 'retryScheduled', step: 1, ordinal: 1, taskId: '1:1', attempt: 1, delayMs: 5_000, strategy: 'linear', nextAttemptAt: 6_000 });
    expect(replay(j.events)?.summary.retrying).toEqual({ taskId: '1:1', nextAttemptAt: 6_000, delayMs: 5_000 });
    j.add({ type: 'attemptStarted', step: 1, ordinal: 1, taskId: '1:1', attempt: 2 });
    expect(replay(j.events)?.summary.retrying).toEqual({ taskId: '1:0', nextAttemptAt: 31_005, delayMs: 30_000 });
  });

  it('goes cancelling, then cancelled with its duration', () => {
    const j = rateLimitedRun();
    j.add({ type: 'cancelRequested', commandId: 'c', reason: 'operator', alreadyCancelling: false });
    j.add({ type: 'runCancelling', epoch: 1, commandId: 'c' });
    expect(replay(j.events)?.summary.status).toBe('cancelling');
    j.add({ type: 'runCancelled', cause: { commandId: 'c', reason: 'operator' }, correlation: { run: 'run_a', step: 1, epoch: 1 } }, 2_500);
    expect(replay(j.events)?.summary).toMatchObject({ status: 'cancelled', endedAt: 2_500, durationMs: 1_500, retrying: null });
  });

  it('ends failed; the last error is the last errorOccurred, as in the store', () => {
    const j = rateLimitedRun();
    const error = envelope('POLICY_RETRY_LIMIT_EXCEEDED', { message: 'gave up' });
    j.add({ type: 'errorOccurred', error, caught: false, retrying: false, step: 1, ordinal: 0, taskId: '1:0' });
    j.add({ type: 'runFailed', error: envelope('RUNTIME_CRASHED') }, 9_000);
    expect(replay(j.events)?.summary).toMatchObject({
      status: 'failed',
      durationMs: 8_000,
      errorCount: 2,
      lastError: { code: 'POLICY_RETRY_LIMIT_EXCEEDED', message: 'gave up' },
    });
  });

  it('returns the same object for events that change nothing on the row', () => {
    const j = rateLimitedRun();
    const live = replay(j.events);
    const same = applyToLiveRun(live, j.add({ type: 'writeApplied', step: 1, channel: 'x', ordinal: 0, value: 1 }));
    expect(same).toBe(live);
  });

  it('keeps a loaded row’s retrying badge as its backoff', () => {
    const live = replay(rateLimitedRun().events);
    expect(backoffsOf(live!.summary).get('1:0')).toEqual({ nextAttemptAt: 31_005, delayMs: 30_000 });
  });
});

describe('RunSequencer', () => {
  const events = rateLimitedRun().events;

  it('releases events exactly once and in seq order', () => {
    const s = new RunSequencer(0);
    const e = (n: number): HivewatchEvent => events[n - 1]!;
    expect(s.offer([e(1), e(2)]).map((x) => x.seq)).toEqual([1, 2]);
    expect(s.offer([e(2), e(1)])).toEqual([]);
    expect(s.offer([e(4), e(5)])).toEqual([]);
    expect(s.hasGap).toBe(true);
    expect(s.offer([e(3), e(4)]).map((x) => x.seq)).toEqual([3, 4, 5]);
    expect(s.hasGap).toBe(false);
    expect(s.last).toBe(5);
  });

  it('advances past a snapshot, dropping what it covers', () => {
    const s = new RunSequencer(0);
    s.offer([events[2]!, events[5]!]);
    s.advanceTo(4);
    expect(s.held).toBe(1);
    expect(s.offer([events[4]!]).map((x) => x.seq)).toEqual([5, 6]);
  });
});

describe('the live row’s ending error (rule 16; the engine journals are held against the store in server/live-ending.test.ts)', () => {
  it('the newest error is not the ending one: a retried error stays lastError, the ending error is runFailed’s chain', () => {
    const j = rateLimitedRun();
    const crash = envelope('RUNTIME_CRASHED', { correlation: { project: null, flow: null, run: 'run_a', step: 1, task: '1:1', attempt: 1 } });
    const crashed = j.add({ type: 'errorOccurred', error: crash, caught: false, retrying: false, step: 1, ordinal: 1, taskId: '1:1' });
    j.add({ type: 'errorOccurred', error: envelope('RUNTIME_TIMEOUT'), caught: false, retrying: true, step: 2, ordinal: 2, taskId: '2:2' });
    const chain = [
      {
        seq: crashed.seq,
        code: 'RUNTIME_CRASHED',
        category: 'runtime',
        origin: 'runtime:fake',
        message: crash.message,
        step: 1,
        taskId: '1:1',
        attempt: 1,
        how: null,
      },
    ];
    j.add({ type: 'runFailed', error: crash, chain });
    const summary = replay(j.events)?.summary;
    expect(summary?.lastError?.code).toBe('RUNTIME_TIMEOUT');
    expect(summary?.endingError).toEqual({
      code: 'RUNTIME_CRASHED',
      category: 'runtime',
      origin: 'runtime:fake',
      message: crash.message,
      step: 1,
      taskId: '1:1',
      attempt: 1,
      rootCode: 'RUNTIME_CRASHED',
      chain,
    });
  });

  it('keeps only what could still become a link pending: not a retried error, not one after the end; an idle external run’s reopening clears its ending', () => {
    const j = rateLimitedRun();
    const live = replay(j.events);
    expect(live?.pending).toEqual([]);
    const caught = envelope('RUNTIME_CRASHED', { correlation: { project: null, flow: null, run: 'run_a', step: 1, task: '1:0', attempt: 2 } });
    const event = j.add({ type: 'errorOccurred', error: caught, caught: true, retrying: false, step: 1, ordinal: 0, taskId: '1:0' });
    const pending = applyToLiveRun(live, event);
    expect(pending?.pending).toEqual([{ seq: event.seq, code: 'RUNTIME_CRASHED', message: caught.message, taskId: '1:0', attempt: 2, caught: true }]);
    const cancelled = applyToLiveRun(
      pending,
      j.add({ type: 'runCancelled', cause: { commandId: 'c1', reason: 'stop' }, correlation: { run: 'run_a', step: 1, epoch: 1 } }),
    );
    expect(cancelled?.pending).toEqual([]);
    expect(cancelled?.summary.endingError).toMatchObject({ code: 'SYSTEM_CANCELLED', message: 'stop', step: 1, chain: [{ seq: null }] });
    const late = applyToLiveRun(cancelled, j.add({ type: 'errorOccurred', error: caught, caught: false, retrying: false, step: 1, ordinal: 0, taskId: '1:0' }));
    expect(late?.pending).toEqual([]);
    expect(applyToLiveRun(late, j.add({ type: 'externalRunReopened', idleSince: 0 }))?.summary.endingError).toBeNull();
  });
});
