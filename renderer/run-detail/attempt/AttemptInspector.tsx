import type { AttemptView } from '../../../core/service/api.js';
import { RelativeTime } from '../../components/Time.js';
import { formatDuration } from '../../lib/format.js';
import type { AttemptWall } from '../../lib/run-clock.js';
import { commandLineText, exitText, type AttemptInspection } from './attempt-inspection.js';
import { stopNote, type EndingRole } from './attempt-notes.js';
import type { AttemptWork } from './attempt-work.js';
import { AttemptWorkView } from './AttemptWorkView.js';
import { ErrorEnvelopeView } from './ErrorEnvelopeView.js';
import { TextBlock } from './TextBlock.js';

/** A captured text block, or a line saying why there is none. */
function Captured({ label, text, testId, open }: { label: string; text: string | null | undefined; testId: string; open?: boolean }) {
  if (text === null || text === undefined) return null;
  return (
    <details className="inspector-block" open={open} data-testid={testId}>
      <summary>
        {label} {text === '' && <span className="muted">(empty)</span>}
      </summary>
      {/* Focusable: a long line scrolls sideways, and a keyboard must reach that too (axe scrollable-region-focusable). */}
      {text !== '' && <pre tabIndex={0}>{text}</pre>}
    </details>
  );
}

/**
 * Everything the journal knows of one attempt: what it was asked (the
 * rendered prompt, or the command line it ran), what it answered, how its process ended, its
 * error envelope, and the agent work around it (the feedback it was given, checks, changes).
 * Text only: the journal holds bounded tails, and this shows them as they are.
 */
export function AttemptInspector({
  attempt,
  inspection,
  work,
  virtual,
  wall,
  role,
}: {
  attempt: AttemptView;
  inspection: AttemptInspection | undefined;
  work: AttemptWork | undefined;
  /** The run's clock is virtual: the duration is on it, not real time. */
  virtual: boolean;
  /** When it started and ended, in wall time (from the journal); absent before the journal is read. */
  wall?: AttemptWall | undefined;
  /** Its error is the run's ending error, or a cause of it (rule 16). */
  role?: EndingRole | undefined;
}) {
  const trace = inspection?.trace ?? null;
  const duration = inspection?.durationMs ?? (attempt.endedAt !== null ? attempt.endedAt - attempt.startedAt : null);
  const exit = exitText(trace);
  const failed = attempt.status === 'failed';
  const asked = inspection?.argv ? commandLineText(inspection.argv) : (inspection?.prompt ?? null);
  const stopped = stopNote(attempt);
  return (
    <div className="attempt-inspector" data-testid="attempt-inspector">
      {role && (
        <p className={`attempt-role role-${role}`} data-testid="attempt-role">
          {role === 'ended'
            ? 'This attempt’s error ended the run: it is the run’s ending error.'
            : 'This attempt’s error is a cause of the run’s ending error.'}
        </p>
      )}
      {stopped && (
        <p className="attempt-stopped" data-testid="attempt-stopped">
          {stopped[0]?.toUpperCase()}
          {stopped.slice(1)}.
        </p>
      )}
      <dl className="inspector-facts">
        <div>
          <dt>Started</dt>
          <dd data-testid="attempt-started">{wall ? <RelativeTime ts={wall.started} /> : <span className="muted">—</span>}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="attempt-duration">
            {duration === null ? <span className="muted">running</span> : `${virtual ? 'virtual ' : ''}${formatDuration(duration)}`}
          </dd>
        </div>
        <div>
          <dt>Process</dt>
          <dd data-testid="attempt-exit">{exit ?? <span className="muted">{attempt.endedAt === null ? 'running' : 'none reported'}</span>}</dd>
        </div>
      </dl>
      <section className="inspector-asked">
        <h4>{inspection?.argv ? 'Command line' : 'Prompt'}</h4>
        {asked === null ? (
          <p className="muted">Not journaled (a run from before prompts were journaled).</p>
        ) : (
          <TextBlock text={asked} what={inspection?.argv ? 'the command line' : 'the prompt'} testId={inspection?.argv ? 'attempt-argv' : 'attempt-prompt'} />
        )}
      </section>
      {trace?.output !== undefined && (
        <section className="inspector-answered">
          <h4>Output</h4>
          {trace.output === '' ? (
            <pre className="inspector-text" data-testid="attempt-output">
              <span className="muted">(empty)</span>
            </pre>
          ) : (
            <TextBlock text={trace.output} what="the output" testId="attempt-output" />
          )}
        </section>
      )}
      {attempt.error ? (
        <ErrorEnvelopeView error={attempt.error} when={wall?.ended ?? null} role={role ?? null} />
      ) : (
        attempt.endedAt !== null && !stopped && <p className="muted">This attempt has no error.</p>
      )}
      {work && <AttemptWorkView work={work} />}
      <Captured label="stdout (tail)" text={trace?.stdoutTail} testId="attempt-stdout" open={failed && trace?.stdoutTail !== ''} />
      <Captured label="stderr (tail)" text={trace?.stderrTail} testId="attempt-stderr" open={failed && trace?.stderrTail !== ''} />
    </div>
  );
}
