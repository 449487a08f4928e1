import type { AttemptView, TaskView } from '../../../core/service/api.js';
import { OutcomeBadge } from '../../components/StatusBadge.js';
import type { AttemptWall } from '../../lib/run-clock.js';
import type { AttemptInspection } from './attempt-inspection.js';
import { waitAfter, type EndingRole } from './attempt-notes.js';
import type { AttemptWork } from './attempt-work.js';
import { AttemptInspector } from './AttemptInspector.js';
import { AttemptTelemetryNote } from './AttemptTelemetryNote.js';
import { attemptOfLimit } from './task-title.js';
import { attemptUsageLine } from '../../lib/cost-format.js';
import { figuresSourceWords } from './attempt-figures.js';

/** The attempt the operator picked on the timeline: its heading, and everything the inspector knows of it. */
export function PickedAttempt(props: {
  task: TaskView;
  attempt: AttemptView;
  virtual: boolean;
  why: string | undefined;
  inspection: AttemptInspection | undefined;
  work: AttemptWork | undefined;
  wall: AttemptWall | undefined;
  role: EndingRole | undefined;
}) {
  const { task, attempt, virtual, why } = props;
  const wait = waitAfter(task, attempt, virtual, why);
  return (
    <div className="picked-attempt" data-testid="picked-attempt">
      <h3>
        {task.name} · attempt {attemptOfLimit(attempt.attempt, task.maxAttempts)} <OutcomeBadge status={attempt.status} />
        {wait && <span className="muted picked-why">{wait}</span>}
      </h3>
      <AttemptInspector attempt={attempt} inspection={props.inspection} work={props.work} virtual={virtual} wall={props.wall} role={props.role} />
      {attempt.usage && (
        <p className="attempt-usage" data-testid="attempt-usage">
          <span className="muted">Tokens and cost:</span> {attemptUsageLine(attempt.usage)}
        </p>
      )}
      {figuresSourceWords(attempt) !== null && (
        <p className="muted attempt-figures" data-testid="attempt-figures">
          {figuresSourceWords(attempt)}
        </p>
      )}
      {attempt.telemetry?.map((t) => (
        <AttemptTelemetryNote key={t.runId} telemetry={t} />
      ))}
    </div>
  );
}
