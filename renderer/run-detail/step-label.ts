import type { StepView } from '../../core/service/api.js';

/**
 * What a step's chip says. A committed step in which a task failed (caught, or continued past)
 * is not a plain green "finished": it reads "finished · 1 failed", in the warning tone.
 */
export function stepLabel(step: StepView, failedTasks: number): { status: string; tone: string; hint: string } {
  if (step.status === 'finished' && failedTasks > 0) {
    return {
      status: `finished · ${failedTasks} failed`,
      tone: 'finished-failures',
      hint: `committed, but ${failedTasks} task${failedTasks === 1 ? '' : 's'} failed (caught or continued past)`,
    };
  }
  const hint = step.status === 'finished' ? 'committed' : step.status === 'aborted' ? 'nothing committed' : step.status;
  return { status: step.status, tone: step.status, hint };
}
