import type { HivewatchEvent } from '../../base/events.js';
import { TERMINAL_EVENT_TYPES } from '../../base/events.js';

/**
 * What every journal must satisfy, whatever the flow and whatever happened: the checks run on
 * every generated run. Returns the broken ones (empty when the journal is sound). The ending
 * error's chain has checks of its own (`chainProblems`, observed.ts).
 */
const COMMIT_SCOPED = new Set(['writeApplied', 'checkpointSaved', 'stepFinished']);

export function journalProblems(events: readonly HivewatchEvent[]): string[] {
  const problems: string[] = [];
  events.forEach((event, index) => {
    if (event.seq !== index + 1) problems.push(`seq ${event.seq} at position ${index + 1}: not gapless from 1`);
  });
  const terminals = events.filter((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.type));
  if (terminals.length !== 1) problems.push(`${terminals.length} terminal events`);
  if (terminals[0] !== events.at(-1)) problems.push('the terminal event is not the last');
  if (events[0]?.type !== 'runStarted') problems.push('the journal does not start with runStarted');

  const errors = new Set(events.flatMap((e) => (e.type === 'errorOccurred' ? [`${e.taskId}#${e.error.correlation.attempt}`] : [])));
  const judgedCancelled = new Set(events.flatMap((e) => (e.type === 'attemptJudgedCancelled' ? [`${e.taskId}#${e.attempt}`] : [])));
  const failedAttempts = new Set<string>();
  const attemptEnds = new Map<string, number>();
  for (const e of events) {
    // A failed attempt's end is a fact; the judgment follows it: it counts, or its task counts as cancelled (F6).
    if (e.type === 'attemptFailed') failedAttempts.add(`${e.taskId}#${e.attempt}`);
    if (e.type === 'attemptFailed' && !errors.has(`${e.taskId}#${e.attempt}`) && !judgedCancelled.has(`${e.taskId}#${e.attempt}`)) {
      problems.push(`attemptFailed ${e.taskId}#${e.attempt} has neither an errorOccurred nor attemptJudgedCancelled`);
    }
    if (e.type === 'attemptJudgedCancelled' && !failedAttempts.has(`${e.taskId}#${e.attempt}`))
      problems.push(`attemptJudgedCancelled ${e.taskId}#${e.attempt} judges no attemptFailed before it`);
    // Cancelled by a sibling is not an error of its own (F6).
    if (e.type === 'attemptCancelled' && errors.has(`${e.taskId}#${e.attempt}`))
      problems.push(`attemptCancelled ${e.taskId}#${e.attempt} has an errorOccurred`);
    if (e.type === 'attemptSucceeded' || e.type === 'attemptFailed' || e.type === 'attemptCancelled') {
      const key = `${e.taskId}#${e.attempt}`;
      attemptEnds.set(key, (attemptEnds.get(key) ?? 0) + 1);
    }
  }
  for (const [key, count] of attemptEnds) if (count > 1) problems.push(`attempt ${key} ended ${count} times`);

  const cancelAt = events.findIndex((e) => e.type === 'cancelRequested');
  if (cancelAt !== -1) {
    const late = events.slice(cancelAt).filter((e) => COMMIT_SCOPED.has(e.type) || e.type === 'stepStarted');
    if (late.length > 0) problems.push(`${late.map((e) => e.type).join(', ')} after cancelRequested`);
  }

  // Every task a step started ends exactly once, in ascending ordinal, before the step finishes.
  let open: number[] = [];
  let step = 0;
  for (const e of events) {
    if (e.type === 'stepStarted') {
      if (open.length > 0) problems.push(`step ${step} left tasks ${open.join(', ')} without an outcome`);
      step = e.step;
      open = e.frontier.map((f) => f.ordinal);
    } else if (e.type === 'taskSucceeded' || e.type === 'taskFailed') {
      if (e.step !== step || open[0] !== e.ordinal) problems.push(`${e.type} ${e.taskId} out of ordinal order`);
      open = open.filter((o) => o !== e.ordinal);
    } else if (e.type === 'stepFinished' && open.length > 0) {
      problems.push(`step ${e.step} finished with tasks ${open.join(', ')} open`);
    }
  }
  return problems;
}

/** The run's status as its terminal event says; what `hivewatch run` turns into its exit code. */
export function terminalStatus(events: readonly HivewatchEvent[]): string | null {
  const last = events.at(-1);
  switch (last?.type) {
    case 'runCompleted':
      return 'completed';
    case 'runFailed':
      return 'failed';
    case 'runCancelled':
      return 'cancelled';
    default:
      return null;
  }
}
