import { describe, expect, it } from 'vitest';
import type { AttemptView, RunDetail, TaskView } from '../../../core/service/api.js';
import { envelope } from '../../testing/events.js';
import { formatAbsolute } from '../../lib/format.js';
import { GAP_MAX, INSTANT, layoutTimeline } from './timeline-layout.js';

const T0 = 1_700_000_000_000;

function attempt(n: number, startedAt: number, overrides: Partial<AttemptView> = {}): AttemptView {
  return {
    attempt: n,
    startedAt,
    endedAt: startedAt,
    status: 'failed',
    error: envelope('RUNTIME_RATE_LIMIT', { message: `429 on attempt ${n}` }),
    delayAfterMs: null,
    strategy: null,
    nextAttemptAt: null,
    ...overrides,
  };
}

function task(taskId: string, step: number, attempts: AttemptView[], overrides: Partial<TaskView> = {}): TaskView {
  return {
    taskId,
    step,
    ordinal: Number(taskId.split(':')[1]),
    name: `task ${taskId}`,
    agent: 'assistant',
    status: 'succeeded',
    maxAttempts: 5,
    attempts,
    error: null,
    output: null,
    ...overrides,
  };
}

/** examples/02 on the virtual clock: 0 ms attempts, rate-limit waits of 30 s, 60 s, 120 s. */
function rateLimited(): RunDetail {
  const delays = [30_000, 60_000, 120_000];
  let t = T0;
  const attempts: AttemptView[] = [];
  delays.forEach((d, i) => {
    attempts.push(attempt(i + 1, t, { delayAfterMs: d, strategy: 'rate_limit_exponential', nextAttemptAt: t + d }));
    t += d;
  });
  attempts.push(attempt(4, t, { status: 'succeeded', error: null }));
  const end = t;
  return {
    run: {
      id: 'run_1',
      flow: 'examples/02-rate-limited-api.prose',
      flowName: '02-rate-limited-api',
      status: 'completed',
      clock: 'real',
      startedAt: T0,
      endedAt: end,
      durationMs: end - T0,
      startedWall: T0,
      endedWall: end,
      step: 1,
      maxSteps: 100,
      attempts: 4,
      errorCount: 3,
      retrying: null,
      resumedFrom: null,
      retryOf: null,
      lastError: null,
      endingError: null,
    },
    steps: [{ step: 1, status: 'finished', startedAt: T0, endedAt: end, taskIds: ['1:0'] }],
    tasks: [task('1:0', 1, attempts)],
    lastSeq: 20,
    lineage: { retries: [], resumes: [], previous: null },
  };
}

describe('layoutTimeline', () => {
  it('draws a bar per attempt and a labelled gap per backoff, gaps growing with their delay', () => {
    const layout = layoutTimeline(rateLimited(), T0);
    const row = layout.rows[0]!;
    expect(row.segments.map((s) => `${s.kind}:${s.label}:${s.status}`)).toEqual([
      'attempt:#1:failed',
      'backoff:30s:done',
      'attempt:#2:failed',
      'backoff:1m:done',
      'attempt:#3:failed',
      'backoff:2m:done',
      'attempt:#4:succeeded',
    ]);
    const gaps = row.segments.filter((s) => s.kind === 'backoff').map((s) => s.width);
    expect(gaps[0]).toBeLessThan(gaps[1]!);
    expect(gaps[1]).toBeLessThan(gaps[2]!);
    for (const bar of row.segments.filter((s) => s.kind === 'attempt')) expect(bar.width).toBeCloseTo(INSTANT, 6);
  });

  it('places segments left to right without overlap', () => {
    const row = layoutTimeline(rateLimited(), T0).rows[0]!;
    for (let i = 1; i < row.segments.length; i++) {
      const prev = row.segments[i - 1]!;
      expect(row.segments[i]!.x).toBeCloseTo(prev.x + prev.width, 6);
    }
  });

  it('keeps every attempt’s error, not only the last', () => {
    const row = layoutTimeline(rateLimited(), T0).rows[0]!;
    expect(row.segments.filter((s) => s.error).map((s) => s.error?.message)).toEqual(['429 on attempt 1', '429 on attempt 2', '429 on attempt 3']);
  });

  it('marks a task waiting in backoff with a pending attempt and its countdown target', () => {
    const detail = rateLimited();
    const t = detail.tasks[0]!;
    const waitingTask: TaskView = {
      ...t,
      status: 'waiting',
      attempts: [attempt(1, T0, { delayAfterMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: T0 + 30_000 })],
    };
    const layout = layoutTimeline({ ...detail, tasks: [waitingTask], steps: [{ ...detail.steps[0]!, status: 'running', endedAt: null }] }, T0 + 1_000);
    const row = layout.rows[0]!;
    expect(row.waiting).toEqual({ nextAttemptAt: T0 + 30_000, delayMs: 30_000, attempt: 2 });
    expect(row.segments.map((s) => `${s.kind}:${s.status}`)).toEqual(['attempt:failed', 'backoff:waiting', 'pending:pending']);
  });

  it('labels a skipped backoff "skipped", keeps its scheduled delay in the explanation and ends it at the next attempt', () => {
    const detail = rateLimited();
    const skipped: TaskView = {
      ...detail.tasks[0]!,
      attempts: [attempt(1, T0, { delayAfterMs: 300_000, nextAttemptAt: T0 + 300_000 }), attempt(2, T0 + 5_000, { status: 'succeeded', error: null })],
    };
    const row = layoutTimeline({ ...detail, tasks: [skipped] }, T0).rows[0]!;
    expect(row.segments[1]).toMatchObject({ kind: 'backoff', status: 'skipped', label: 'skipped', delayMs: 300_000, end: T0 + 5_000 });
    expect(row.segments[1]?.why).toMatch(/^skipped: .*= 5m, retry 1 of 4/);
  });

  it('explains each gap from the task’s own schedule, with a journaled reason where there is one', () => {
    const detail = rateLimited();
    const fetch = detail.tasks.find((t) => t.taskId === '1:0')!;
    const reasons = new Map([['1:0#1', 'reset at noon']]);
    const whys = layoutTimeline(detail, T0, reasons)
      .rows.find((r) => r.task.taskId === '1:0')!
      .segments.filter((s) => s.kind === 'backoff')
      .map((s) => s.why);
    expect(whys[0]).toMatch(/^rate limit → exponential 30s·2ⁿ = 30s \(reset at noon\), retry 1 of 4; next attempt at /);
    expect(whys[1]).toMatch(/^rate limit → exponential 30s·2ⁿ = 1m, retry 2 of 4; next attempt at /);
    expect(fetch.attempts[0]?.strategy).toBe('rate_limit_exponential');
  });

  it('extends a running attempt to now, and orders rows by step then ordinal', () => {
    const detail = rateLimited();
    const running = task('2:3', 2, [attempt(1, T0 + 210_000, { status: 'running', endedAt: null, error: null })], { status: 'running' });
    const early = task('2:1', 2, [attempt(1, T0 + 210_000, { status: 'succeeded', error: null, endedAt: T0 + 211_000 })]);
    const layout = layoutTimeline({ ...detail, tasks: [running, early, ...detail.tasks] }, T0 + 270_000);
    expect(layout.rows.map((r) => r.task.taskId)).toEqual(['1:0', '2:1', '2:3']);
    const bar = layout.rows[2]!.segments[0]!;
    expect(bar.end).toBe(T0 + 270_000);
    expect(bar.width).toBeGreaterThan(layout.rows[1]!.segments[0]!.width);
  });

  it('lays out a run with no tasks yet', () => {
    const detail = { ...rateLimited(), tasks: [], steps: [] };
    const layout = layoutTimeline(detail, T0);
    expect(layout.rows).toEqual([]);
    expect(layout.width).toBeGreaterThan(0);
  });

  it('reads steps that all happen at one virtual instant left to right', () => {
    const base = rateLimited();
    const tasks = [1, 2, 3].map((step) => task(`${step}:${step - 1}`, step, [attempt(1, T0, { status: 'succeeded', error: null })]));
    const steps = [1, 2, 3].map((step) => ({ step, status: 'finished' as const, startedAt: T0, endedAt: T0, taskIds: [`${step}:${step - 1}`] }));
    const layout = layoutTimeline({ ...base, tasks, steps }, T0);
    const xs = layout.rows.map((r) => r.segments[0]!.x);
    expect(xs[0]).toBeLessThan(xs[1]!);
    expect(xs[1]).toBeLessThan(xs[2]!);
    expect(xs[1]! - xs[0]!).toBeGreaterThanOrEqual(INSTANT);
    expect(layout.steps.map((b) => b.x)).toEqual(xs);
  });

  it('aligns concurrent tasks of one step', () => {
    const base = rateLimited();
    const tasks = [0, 1, 2].map((o) => task(`1:${o}`, 1, [attempt(1, T0, { status: 'succeeded', error: null, endedAt: T0 + 2_000 })]));
    const layout = layoutTimeline({ ...base, tasks, steps: [{ step: 1, status: 'finished', startedAt: T0, endedAt: T0 + 2_000, taskIds: [] }] }, T0);
    const bars = layout.rows.map((r) => r.segments[0]!);
    expect(new Set(bars.map((b) => b.x)).size).toBe(1);
    expect(new Set(bars.map((b) => b.width)).size).toBe(1);
  });

  it('puts a band and a tick at each step', () => {
    const detail = rateLimited();
    const end = detail.run.endedAt!;
    detail.steps.push({ step: 2, status: 'finished', startedAt: end, endedAt: end + 1_000, taskIds: [] });
    const layout = layoutTimeline(detail, end);
    expect(layout.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(layout.ticks.map((t) => t.label)).toEqual(['+0 ms', '+3m 30s']);
    expect(layout.steps[1]!.x).toBeGreaterThan(layout.steps[0]!.x);
  });

  it('keeps a gap to a time far from the others (2300, past what a Date shows) within GAP_MAX', () => {
    for (const far of [Date.UTC(2300, 0, 1), 9e15]) {
      const detail = rateLimited();
      const attempts = detail.tasks[0]!.attempts;
      attempts[3] = attempt(4, far, { status: 'succeeded', error: null });
      const layout = layoutTimeline({ ...detail, steps: [{ ...detail.steps[0]!, endedAt: far }] }, T0);
      expect(Number.isFinite(layout.width)).toBe(true);
      expect(layout.width).toBeLessThan(4 * INSTANT + 2 * GAP_MAX);
    }
  });
});

describe('when the next attempt ran, in wall time', () => {
  /** The same run on the virtual clock: its attempts ran within a second of wall time. */
  const virtualRun = (): RunDetail => {
    const d = rateLimited();
    return { ...d, run: { ...d.run, clock: 'virtual', endedWall: T0 + 900 } };
  };
  const walls = new Map([1, 2, 3, 4].map((n) => [`1:0#${n}`, { started: T0 + n * 200, ended: T0 + n * 200 + 50 }]));
  const whys = (d: RunDetail, w = walls) =>
    layoutTimeline(d, T0, new Map(), w)
      .rows[0]?.segments.filter((s) => s.kind === 'backoff')
      .map((s) => s.why) ?? [];

  it('a virtual-clock run’s gap names the wall time its next attempt started, never the run clock’s time', () => {
    const texts = whys(virtualRun());
    expect(texts).toHaveLength(3);
    texts.forEach((why, i) => expect(why).toMatch(new RegExp(`next attempt at ${formatAbsolute(T0 + (i + 2) * 200).replace('.', '\\.')}$`)));
    // Without the journal's walls a virtual clock's times are not times of day: nothing is said.
    for (const why of whys(virtualRun(), new Map())) expect(why).not.toContain('next attempt at');
  });

  it('a real-clock run keeps its scheduled times (they are wall times), and a virtual one waiting now names none', () => {
    expect(whys(rateLimited(), new Map())[0]).toContain(`next attempt at ${formatAbsolute(T0 + 30_000)}`);
    const d = virtualRun();
    const waiting: RunDetail = {
      ...d,
      run: { ...d.run, status: 'running', endedAt: null, endedWall: null },
      tasks: [
        task('1:0', 1, [attempt(1, T0, { delayAfterMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: T0 + 30_000 })], { status: 'waiting' }),
      ],
    };
    const layout = layoutTimeline(waiting, T0, new Map(), walls);
    const gap = layout.rows[0]?.segments.find((s) => s.kind === 'backoff');
    expect(gap?.status).toBe('waiting');
    expect(gap?.why).not.toContain('next attempt at');
  });
});
