import type { TaskView } from '../../core/service/api.js';

/**
 * The tooltip of a task's name in the retry timeline: the whole name (the row wraps it to two
 * lines), and for a task that shares its step with others, which parallel branch it is. The
 * journal names a task by its label or prompt, not by the variable a branch is bound to, so the
 * branch is told by its place among its step's tasks.
 */
export function taskTitle(task: TaskView, tasks: readonly TaskView[]): string {
  const branches = tasks.filter((t) => t.step === task.step).sort((a, b) => a.ordinal - b.ordinal);
  const lines = [task.name, `agent ${task.agent} · task ${task.taskId}`];
  if (branches.length > 1) {
    const index = branches.findIndex((t) => t.taskId === task.taskId);
    lines.push(`parallel branch ${index + 1} of ${branches.length} in step ${task.step}`);
  }
  return lines.join('\n');
}
