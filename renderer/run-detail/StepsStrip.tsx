import type { StepView, TaskView } from '../../core/service/api.js';
import { Duration } from '../components/Time.js';

/** The steps in order: each a chip with its status, task count and duration. */
export function StepsStrip({ steps, tasks, maxSteps }: { steps: readonly StepView[]; tasks: readonly TaskView[]; maxSteps: number }) {
  if (steps.length === 0) return <p className="muted">No step has started yet.</p>;
  const failedIn = new Set(tasks.filter((t) => t.status === 'failed').map((t) => t.step));
  return (
    <ol className="steps-strip" aria-label="Steps">
      {[...steps]
        .sort((a, b) => a.step - b.step)
        .map((s) => (
          <li
            key={s.step}
            className={`step-chip step-${s.status}${failedIn.has(s.step) ? ' has-failure' : ''}`}
            title={`step ${s.step} of at most ${maxSteps}: ${s.status}${s.status === 'finished' ? ' (committed)' : s.status === 'aborted' ? ' (nothing committed)' : ''}`}
          >
            <span className="step-number">Step {s.step}</span>
            <span className="step-status">{s.status}</span>
            <span className="step-meta">
              {s.taskIds.length} task{s.taskIds.length === 1 ? '' : 's'} · <Duration start={s.startedAt} end={s.endedAt} />
            </span>
          </li>
        ))}
    </ol>
  );
}
