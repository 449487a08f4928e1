import type { HivewatchEvent, TaskView } from '../../../core/service/api.js';

/**
 * A task whose last attempt has ended failed while lower branches of its step that could still
 * cancel it run (rule 6): the end is a fact, shown at once; whether it counts as a failure or as
 * cancelled waits for them (docs/semantics.md "Event order within a step"). Read from the journal:
 * `attemptFailed.awaiting` names them, and the wait is over at the verdict (`errorOccurred`,
 * `attemptJudgedCancelled`), the task's outcome or the run's end.
 */
export interface JudgmentWait {
  attempt: number;
  /** How the attempt ended, in a few words: "exited 3", "killed by SIGKILL", "failed with RUNTIME_TIMEOUT". */
  fact: string;
  /** The lower tasks (ids) it still waits for, in ordinal order. */
  waitingFor: string[];
}

type AttemptFailed = Extract<HivewatchEvent, { type: 'attemptFailed' }>;

function endFact(e: AttemptFailed): string {
  if (e.trace?.exitCode != null) return `exited ${e.trace.exitCode}`;
  if (e.trace?.signal) return `killed by ${e.trace.signal}`;
  return `failed with ${e.error.code}`;
}

/** Whether the event says its task has ended in this step: its last attempt's end (with or without a verdict) or its outcome. */
function endsTask(e: HivewatchEvent): string | null {
  switch (e.type) {
    case 'attemptSucceeded':
    case 'attemptCancelled':
    case 'attemptJudgedCancelled':
    case 'taskSucceeded':
    case 'taskFailed':
      return e.taskId;
    case 'attemptFailed':
      // A failure that waits for a verdict is the task's last; a retried one is followed by retryScheduled.
      return e.awaiting?.length ? e.taskId : null;
    case 'errorOccurred':
      return e.taskId !== null && !e.retrying ? e.taskId : null;
    default:
      return null;
  }
}

/** Each waiting task's wait (taskId →), from the journal in seq order. */
export function judgmentWaits(events: readonly HivewatchEvent[]): Map<string, JudgmentWait> {
  const waits = new Map<string, JudgmentWait>();
  const ended = new Set<string>();
  for (const e of events) {
    if (e.type === 'runCompleted' || e.type === 'runFailed' || e.type === 'runCancelled' || e.type === 'runInterrupted') {
      waits.clear();
      continue;
    }
    const task = endsTask(e);
    if (task !== null) ended.add(task);
    if (e.type === 'attemptFailed' && e.awaiting?.length) waits.set(e.taskId, { attempt: e.attempt, fact: endFact(e), waitingFor: [...e.awaiting] });
    else if (task !== null) waits.delete(task);
  }
  for (const [taskId, wait] of waits) {
    const waitingFor = wait.waitingFor.filter((id) => !ended.has(id));
    if (waitingFor.length === 0) waits.delete(taskId);
    else waits.set(taskId, { ...wait, waitingFor });
  }
  return waits;
}

/** "branch 1", "branches 1 and 2", "branches 1, 2 and 4": the awaited tasks as the timeline numbers its step's branches (task-title.ts). */
export function branchesText(waitingFor: readonly string[], tasks: readonly TaskView[]): string {
  const numbers = waitingFor.map((id) => {
    const task = tasks.find((t) => t.taskId === id);
    if (!task) return id;
    const index = tasks
      .filter((t) => t.step === task.step)
      .sort((a, b) => a.ordinal - b.ordinal)
      .findIndex((t) => t.taskId === id);
    return String(index + 1);
  });
  if (numbers.length === 1) return `branch ${numbers[0]}`;
  return `branches ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

/** The tooltip: which tasks, by name, and why the verdict waits for them. */
export function waitTitle(wait: JudgmentWait, tasks: readonly TaskView[]): string {
  const names = wait.waitingFor.map((id) => {
    const task = tasks.find((t) => t.taskId === id);
    return task ? `“${task.name}” (${id})` : id;
  });
  return `Attempt ${wait.attempt} ${wait.fact}. Whether that counts as this task's failure or as cancelled depends on ${names.join(', ')}: a lower branch that fails first cancels it (fail-fast), so the step's verdict waits until ${names.length === 1 ? 'it ends' : 'they end'}.`;
}
