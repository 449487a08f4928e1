import type { TaskView } from '../../../core/service/api.js';

/**
 * The tooltip of a task's name in the retry timeline: the whole name (the row wraps it to two
 * lines), the prompt as the flow wrote it when the name filled in values, and for a task that
 * shares its step with others, which parallel branch it is. The journal names a task by its
 * prompt as run, not by the variable a branch is bound to, so the branch is told by its place
 * among its step's tasks.
 */
export function taskTitle(task: TaskView, tasks: readonly TaskView[]): string {
  const branches = tasks.filter((t) => t.step === task.step).sort((a, b) => a.ordinal - b.ordinal);
  const lines = [task.name, ...(task.template !== undefined ? [`prompt as written: ${task.template}`] : []), `agent ${task.agent} · task ${task.taskId}`];
  if (branches.length > 1) {
    const index = branches.findIndex((t) => t.taskId === task.taskId);
    lines.push(`parallel branch ${index + 1} of ${branches.length} in step ${task.step}`);
  }
  return lines.join('\n');
}

/**
 * "attempt 2 of 3", or "attempt 2" for a task with no limit of its own: an external run's prompt
 * (agent telemetry) has as many attempts as the agent's CLI made, journaled with
 * maxAttempts 0.
 */
export function attemptOfLimit(attempt: number, maxAttempts: number): string {
  return maxAttempts > 0 ? `${attempt} of ${maxAttempts}` : `${attempt}`;
}

/** "2/3 attempts", or "4 attempts" when the task has no limit of its own (see attemptOfLimit). */
export function attemptsUsed(used: number, maxAttempts: number): string {
  return maxAttempts > 0 ? `${used}/${maxAttempts} attempts` : `${used} attempt${used === 1 ? '' : 's'}`;
}
