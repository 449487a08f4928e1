import type { HivewatchEvent } from '../../base/events.js';

/**
 * The canonical form the project compares journals in (rules 15, 18; docs/semantics.md "Event
 * order within a step"). The journal's own order (seq) is the order things happened: the tasks of
 * a step run concurrently, so an attempt's end lands where its process ended, between whatever
 * its siblings journaled, and that order follows the machine's load. Every event that is about
 * one task carries its step, ordinal and attempt, so the canonical form puts each step's events
 * in a documented order that no timing can change:
 *
 *   by step; within a step `stepStarted` first, then task by task in ascending ordinal (the
 *   task's `taskStarted`, `writeApplied` of its branch, then its attempts in order, each attempt's
 *   events in the order the task journaled them: start, end, judgment, retry; the task's outcome
 *   last), then what belongs to the step as a whole (commit, checkpoint, a throw's error).
 *
 * A task's own events are journaled in causal order (an attempt ends after it started, a judgment
 * follows the end it judges), so the journal's order among them is already deterministic, and
 * the form keeps it. It drops what measures real time (seq, ts, durations, wall-clock deadlines)
 * and which lower siblings had not ended when a failure was journaled (`awaiting`).
 *
 * A task that counts as cancelled (a failed fail-fast sibling stopped it) did whatever it managed
 * before the cancel reached it: how many attempts, and whether it had finished, depend on timing.
 * The canonical form keeps that it was cancelled and drops what it did, so that two runs of a
 * flow on the fake runtime and the virtual clock are equal in this form whatever order their
 * attempts settled in and however loaded the machine was (rule 15).
 */

const TIMING_FIELDS = new Set(['seq', 'ts', 'durationMs', 'nextAttemptAt', 'timestamp', 'runId', 'run', 'awaiting']);
const RACE_FIELDS = new Set(['attempts', 'settled']);
/** About the machine the attempt ran on (pids, start times), not about the flow. */
const MACHINE_EVENTS = new Set(['attemptProcess', 'attemptProcessEscaped']);
const ATTEMPT_EVENTS = new Set([
  'attemptStarted',
  'attemptSucceeded',
  'attemptFailed',
  'attemptCancelled',
  'attemptJudgedCancelled',
  'retryScheduled',
  'backoffSkipped',
  'receiptIgnoredStale',
  'errorOccurred',
]);

function strip(value: unknown, fields: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, fields));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !fields.has(key))
      .map(([key, v]) => [key, strip(v, fields)]),
  );
}

interface Keyed {
  event: HivewatchEvent;
  index: number;
  step: number;
  ordinal: number;
  attempt: number;
}

export function canonicalJournal(events: readonly HivewatchEvent[]): unknown[] {
  const cancelledTasks = new Set(events.flatMap((e) => (e.type === 'taskFailed' && e.cancelled ? [e.taskId] : [])));
  const raced = (event: HivewatchEvent): boolean => {
    const taskId = (event as { taskId?: unknown }).taskId;
    return ATTEMPT_EVENTS.has(event.type) && typeof taskId === 'string' && cancelledTasks.has(taskId);
  };
  let currentStep = 0;
  const keyed: Keyed[] = events
    .filter((event) => !raced(event) && !MACHINE_EVENTS.has(event.type))
    .map((event, index) => {
      const e = event as unknown as Record<string, unknown>;
      if (event.type === 'stepStarted') currentStep = event.step;
      const step = typeof e.step === 'number' ? e.step : currentStep;
      // Events that are not about one task keep their place relative to the step boundaries.
      const ordinal = typeof e.ordinal === 'number' ? e.ordinal : event.type === 'stepStarted' ? -1 : Number.MAX_SAFE_INTEGER;
      const attempt =
        typeof e.attempt === 'number'
          ? e.attempt
          : event.type === 'errorOccurred'
            ? (event.error.correlation.attempt ?? Number.MAX_SAFE_INTEGER)
            : event.type === 'taskSucceeded' || event.type === 'taskFailed'
              ? Number.MAX_SAFE_INTEGER
              : 0;
      return { event, index, step, ordinal, attempt };
    });
  keyed.sort((a, b) => a.step - b.step || a.ordinal - b.ordinal || a.attempt - b.attempt || a.index - b.index);
  return keyed.map((k) => {
    const cancelled = k.event.type === 'taskFailed' && k.event.cancelled;
    return strip(strip(k.event, TIMING_FIELDS), cancelled ? RACE_FIELDS : new Set());
  });
}
