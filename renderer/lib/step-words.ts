import type { RunSummary } from '../../core/service/api.js';

/**
 * "3 of 5": the step a run reached, of the steps its flow takes (core/flow/plan/step-count.ts), never
 * of its max-steps limit (a safety stop, not a length). A flow whose catch blocks hold sessions
 * takes more steps when they run: "3 of 5–7". When the count is unknown (timing decides it: a
 * fail-fast parallel with a branch that always throws; an external session; a run journaled
 * before the count) the step stands alone. The tooltip says which.
 */
export function stepWords(run: Pick<RunSummary, 'step' | 'maxSteps' | 'flowSteps'>): { text: string; title: string } {
  const steps = run.flowSteps ?? null;
  const limit = run.maxSteps > 0 ? `; it stops at ${run.maxSteps} (max-steps)` : '';
  if (steps === null) return { text: String(run.step), title: `step ${run.step}; how many steps its flow takes is not known${limit}` };
  if (steps.expected === steps.most) {
    return { text: `${run.step} of ${steps.expected}`, title: `step ${run.step} of the ${steps.expected} its flow takes` };
  }
  return {
    text: `${run.step} of ${steps.expected}–${steps.most}`,
    title: `step ${run.step}: its flow takes ${steps.expected} steps when nothing fails, up to ${steps.most} when its catch blocks run`,
  };
}
