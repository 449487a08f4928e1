import type { StepView, TaskView } from '../../core/service/api.js';
import { Duration } from '../components/Time.js';
import { stepLabel } from './step-label.js';

/** The steps in order: each a chip with its status, task count and duration. */
export function StepsStrip({
  steps,
  tasks,
  maxSteps,
  virtual = false,
}: {
  steps: readonly StepView[];
  tasks: readonly TaskView[];
  maxSteps: number;
  virtual?: boolean;
}) {
  if (steps.length === 0) return <p className="muted">No step has started yet.</p>;
  const failedIn = new Map<number, number>();
  for (const t of tasks) if (t.status === 'failed') failedIn.set(t.step, (failedIn.get(t.step) ?? 0) + 1);
  return (
    <ol className="steps-strip" aria-label="Steps">
      {[...steps]
        .sort((a, b) => a.step - b.step)
        .map((s) => {
          const label = stepLabel(s, failedIn.get(s.step) ?? 0);
          return (
            <li
              key={s.step}
              className={`step-chip step-${label.tone}${failedIn.has(s.step) ? ' has-failure' : ''}`}
              title={`step ${s.step} of at most ${maxSteps}: ${label.hint}`}
            >
              <span className="step-number">Step {s.step}</span>
              <span className="step-status">{label.status}</span>
              <span className="step-meta">
                {s.taskIds.length} task{s.taskIds.length === 1 ? '' : 's'} · {virtual && 'virtual '}
                <Duration start={s.startedAt} end={s.endedAt} />
              </span>
            </li>
          );
        })}
    </ol>
  );
}
