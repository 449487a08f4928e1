import type { HivewatchEvent } from './events.js';

/**
 * The canonical form the project compares journals in. Tasks of one step run concurrently, so
 * their attempt events interleave by timing; the canonical form orders each step's events by
 * (ordinal, attempt, event order within the attempt) and drops what measures real time (seq,
 * ts, durations, wall-clock deadlines). Two runs of a flow on the fake runtime and the virtual
 * clock must be equal in this form (rule 15).
 */

const TIMING_FIELDS = new Set(['seq', 'ts', 'durationMs', 'nextAttemptAt', 'timestamp', 'runId', 'run']);

function stripTiming(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripTiming);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !TIMING_FIELDS.has(key))
      .map(([key, v]) => [key, stripTiming(v)]),
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
  let currentStep = 0;
  const keyed: Keyed[] = events.map((event, index) => {
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
  return keyed.map((k) => stripTiming(k.event));
}
