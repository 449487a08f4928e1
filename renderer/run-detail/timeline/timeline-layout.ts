import type { AttemptView, ErrorEnvelope, RunDetail, StepView, TaskView } from '../../../core/service/api.js';
import { formatDelay, formatDuration } from '../../lib/format.js';
import { attemptWallKey, type AttemptWall } from '../../lib/run-clock.js';
import { formatResetTime } from '../../lib/usage-limit.js';
import { explainBackoff, type ScheduledBackoff } from './backoff-explanation.js';

/**
 * Lays out the retry timeline: a row per task, a bar per attempt, the backoff gap between two
 * attempts. Every row shares one time axis, but a compressed one: attempts on the virtual clock
 * last 0 ms while backoffs last minutes, so
 *   - every attempt start is an "instant" slot of fixed width (an attempt is always visible),
 *   - the time between two consecutive instants of interest is drawn √-proportionally
 *     (GAP_MIN + GAP_PER_SQRT_SECOND·√seconds): a 120 s gap is visibly longer than a 60 s one,
 *     yet a 5 min wait does not squash everything else.
 * The exact values are in the labels ("30s") and tooltips, never read off the geometry.
 */

export const INSTANT = 30;
const GAP_MIN = 6;
const GAP_PER_SQRT_SECOND = 12;

type SegmentKind = 'attempt' | 'backoff' | 'pending';

export interface TimelineSegment {
  kind: SegmentKind;
  /** Left edge and width in layout units (px at scale 1). */
  x: number;
  width: number;
  start: number;
  end: number;
  /** The attempt this bar is, or the attempt the backoff (or pending marker) leads to. */
  attempt: number;
  /** attempt: its outcome; backoff: 'done' | 'waiting' | 'skipped'; pending: 'pending'. */
  status: string;
  label: string;
  error: ErrorEnvelope | null;
  delayMs: number | null;
  strategy: string | null;
  /** backoff: why the gap is this long and when the next attempt runs (explainBackoff); else null. */
  why: string | null;
}

export interface TimelineRow {
  task: TaskView;
  segments: TimelineSegment[];
  /** Set while the task waits in backoff: the countdown target. */
  waiting: { nextAttemptAt: number; delayMs: number; attempt: number } | null;
}

export interface StepBand {
  step: number;
  status: StepView['status'];
  x: number;
  width: number;
}

interface Tick {
  x: number;
  label: string;
}

export interface TimelineLayout {
  width: number;
  t0: number;
  rows: TimelineRow[];
  steps: StepBand[];
  ticks: Tick[];
}

/**
 * The widest a gap is drawn (about a week's √-width): a stored time far from the others (a row
 * dated in 2300, or past what a Date can show) must not make the timeline millions of pixels wide.
 */
export const GAP_MAX = 10_000;

function gapWidth(ms: number): number {
  return ms <= 0 ? 0 : Math.min(GAP_MAX, GAP_MIN + GAP_PER_SQRT_SECOND * Math.sqrt(ms / 1000));
}

/** Extra room where one step hands over to the next at the same instant. */
const STEP_GAP = 4;

/**
 * A point of interest on the axis. Marks at the same time keep the run's order: by step, then
 * by attempt (start before end), so steps that all happen at one virtual instant still read
 * left to right. An attempt start is an instant slot of width INSTANT.
 */
interface Mark {
  t: number;
  step: number;
  order: number;
  width: number;
}

const STEP_START = -1;
const STEP_END = Number.MAX_SAFE_INTEGER;
const startOrder = (attempt: number): number => attempt * 2;
const endOrder = (attempt: number): number => attempt * 2 + 1;

function keyOf(t: number, step: number, order: number): string {
  return `${t}:${step}:${order}`;
}

class CompressedAxis {
  private readonly before = new Map<string, number>();
  private readonly after = new Map<string, number>();
  readonly width: number;

  constructor(marks: readonly Mark[]) {
    const unique = new Map<string, Mark>();
    for (const m of marks) {
      if (!Number.isFinite(m.t)) continue;
      const key = keyOf(m.t, m.step, m.order);
      const seen = unique.get(key);
      if (!seen || seen.width < m.width) unique.set(key, m);
    }
    const sorted = [...unique.values()].sort((a, b) => a.t - b.t || a.step - b.step || a.order - b.order);
    let x = 0;
    let prev: Mark | null = null;
    for (const m of sorted) {
      if (prev !== null) {
        if (m.t > prev.t) x += gapWidth(m.t - prev.t);
        else if (m.step !== prev.step) x += STEP_GAP;
      }
      const key = keyOf(m.t, m.step, m.order);
      this.before.set(key, x);
      x += m.width;
      this.after.set(key, x);
      prev = m;
    }
    this.width = x;
  }

  xBefore(t: number, step: number, order: number): number {
    return this.before.get(keyOf(t, step, order)) ?? 0;
  }

  xAfter(t: number, step: number, order: number): number {
    return this.after.get(keyOf(t, step, order)) ?? 0;
  }
}

function attemptEnd(a: AttemptView, now: number): number {
  return a.endedAt ?? Math.max(a.startedAt, now);
}

function attemptLabel(a: AttemptView): string {
  return `#${a.attempt}`;
}

/** The instants the axis must place: attempts' starts and ends, a waiting task's next start, steps' bounds. */
function timelineMarks(detail: RunDetail, tasks: readonly TaskView[], now: number, stepEnd: (st: StepView) => number): Mark[] {
  const marks: Mark[] = [];
  for (const task of tasks) {
    const last = task.attempts.at(-1);
    for (const a of task.attempts) {
      marks.push({ t: a.startedAt, step: task.step, order: startOrder(a.attempt), width: INSTANT });
      marks.push({ t: attemptEnd(a, now), step: task.step, order: endOrder(a.attempt), width: 0 });
      if (a === last && task.status === 'waiting' && a.nextAttemptAt !== null) {
        marks.push({ t: a.nextAttemptAt, step: task.step, order: startOrder(a.attempt + 1), width: INSTANT });
      }
    }
  }
  for (const st of detail.steps) {
    marks.push({ t: st.startedAt, step: st.step, order: STEP_START, width: 0 });
    marks.push({ t: stepEnd(st), step: st.step, order: STEP_END, width: 0 });
  }
  if (marks.length === 0) marks.push({ t: detail.run.startedAt, step: 0, order: 0, width: 0 });
  return marks;
}

/** The strategy of a wait until a time the runtime named (a usage limit's reset: core/base/errors/retry.ts). */
const RESET_TIME = 'runtime_reset_time';

/**
 * A gap's label: the policy's delay as the flow writes it ("30s", "2m"); a wait until a reset the
 * runtime named reads as that time ("until 14:05", as the run header says it), since its
 * length to the millisecond ("58m59.903s") is an accident of when the failure was seen. On a
 * virtual clock, which has no time of day, its length in whole seconds.
 */
function backoffLabel(strategy: string | null, delayMs: number, scheduled: number, virtual: boolean): string {
  if (strategy !== RESET_TIME) return formatDelay(delayMs);
  return virtual ? formatDuration(delayMs) : `until ${formatResetTime(scheduled, scheduled)}`;
}

/** The next attempt of a task waiting in backoff, at the time it is due. */
function pendingSegment(x: number, scheduled: number, a: AttemptView): TimelineSegment {
  return {
    kind: 'pending',
    x,
    width: INSTANT,
    start: scheduled,
    end: scheduled,
    attempt: a.attempt + 1,
    status: 'pending',
    label: `#${a.attempt + 1}`,
    error: null,
    delayMs: a.delayAfterMs,
    strategy: a.strategy,
    why: null,
  };
}

/**
 * Builds the layout. `now` closes still-running attempts and steps. `reasons` (`taskId#attempt`
 * → retryScheduled.reason) lets a gap say why its delay is not the policy's own. `walls` (the
 * attempts' wall times, run-clock.ts) let it say when the next attempt ran: on a virtual clock
 * the scheduled time is the run's own clock, never a time of day.
 */
export function layoutTimeline(
  detail: RunDetail,
  now: number,
  reasons: ReadonlyMap<string, string> = new Map(),
  walls: ReadonlyMap<string, AttemptWall> = new Map(),
): TimelineLayout {
  const virtual = detail.run.clock === 'virtual';
  const tasks = [...detail.tasks].sort((a, b) => a.step - b.step || a.ordinal - b.ordinal);
  const stepEnd = (st: StepView): number => st.endedAt ?? Math.max(st.startedAt, now);
  const marks = timelineMarks(detail, tasks, now, stepEnd);
  const axis = new CompressedAxis(marks);
  const t0 = Math.min(...marks.map((m) => m.t));

  const rows: TimelineRow[] = tasks.map((task) => {
    const segments: TimelineSegment[] = [];
    const attempts = [...task.attempts].sort((a, b) => a.attempt - b.attempt);
    const step = task.step;
    let waiting: TimelineRow['waiting'] = null;
    const schedule: ScheduledBackoff[] = attempts.flatMap((a) =>
      a.delayAfterMs === null ? [] : [{ attempt: a.attempt, delayMs: a.delayAfterMs, strategy: a.strategy }],
    );
    attempts.forEach((a, i) => {
      const end = attemptEnd(a, now);
      const x = axis.xBefore(a.startedAt, step, startOrder(a.attempt));
      segments.push({
        kind: 'attempt',
        x,
        width: Math.max(INSTANT, axis.xAfter(end, step, endOrder(a.attempt)) - x),
        start: a.startedAt,
        end,
        attempt: a.attempt,
        status: a.status,
        label: attemptLabel(a),
        error: a.error,
        delayMs: null,
        strategy: null,
        why: null,
      });
      if (a.delayAfterMs === null) return;
      const next = attempts[i + 1];
      const scheduled = a.nextAttemptAt ?? end + a.delayAfterMs;
      const skipped = next !== undefined && next.startedAt < scheduled;
      const isWaiting = !next && task.status === 'waiting';
      if (!next && !isWaiting) return;
      const backoffEnd = next ? next.startedAt : scheduled;
      // When the next attempt ran (or, on a real clock, is due): a wall time, or none to tell.
      const nextWall = next ? (walls.get(attemptWallKey(task.taskId, next.attempt))?.started ?? (virtual ? null : next.startedAt)) : virtual ? null : scheduled;
      const bx = axis.xAfter(end, step, endOrder(a.attempt));
      segments.push({
        kind: 'backoff',
        x: bx,
        width: Math.max(0, axis.xBefore(backoffEnd, step, startOrder(a.attempt + 1)) - bx),
        start: end,
        end: backoffEnd,
        attempt: a.attempt + 1,
        status: skipped ? 'skipped' : isWaiting ? 'waiting' : 'done',
        label: skipped ? 'skipped' : backoffLabel(a.strategy, a.delayAfterMs, scheduled, virtual),
        error: null,
        delayMs: a.delayAfterMs,
        strategy: a.strategy,
        why: explainBackoff({
          attempt: a.attempt,
          delayMs: a.delayAfterMs,
          strategy: a.strategy,
          maxAttempts: task.maxAttempts,
          schedule,
          reason: reasons.get(`${task.taskId}#${a.attempt}`) ?? null,
          nextAttemptAt: nextWall,
          skipped,
        }),
      });
      if (isWaiting) {
        waiting = { nextAttemptAt: scheduled, delayMs: a.delayAfterMs, attempt: a.attempt + 1 };
        segments.push(pendingSegment(axis.xBefore(scheduled, step, startOrder(a.attempt + 1)), scheduled, a));
      }
    });
    return { task, segments, waiting };
  });

  const steps: StepBand[] = [...detail.steps]
    .sort((a, b) => a.step - b.step)
    .map((st) => {
      const x = axis.xBefore(st.startedAt, st.step, STEP_START);
      return { step: st.step, status: st.status, x, width: Math.max(INSTANT, axis.xAfter(stepEnd(st), st.step, STEP_END) - x) };
    });

  const ticks: Tick[] = steps.map((band) => {
    const st = detail.steps.find((x) => x.step === band.step) as StepView;
    return { x: band.x, label: `+${formatDuration(st.startedAt - t0)}` };
  });

  const width = Math.max(axis.width, ...rows.flatMap((r) => r.segments.map((seg) => seg.x + seg.width)), INSTANT);
  return { width, t0, rows, steps, ticks };
}
