import type { RunDetail } from '../../core/service/api.js';
import { hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime, RunDuration } from '../components/Time.js';
import { canCancel, canResume, canRetry } from '../runs/run-actions.js';
import { RetryingBadge } from '../runs/RunRow.js';
import type { RunWorkView } from './attempt-work.js';

export interface RunHeaderProps {
  detail: RunDetail;
  onCancel: () => void;
  onRetry: () => void;
  onResume: () => void;
  onExport: () => void;
  exporting: boolean;
  /** From the run's runStarted event, once the journal is read. */
  clock: 'real' | 'virtual' | null;
  /** The run's branch of agent work (issue #10), or null. */
  workspace?: RunWorkView | null;
}

/** The run's identity, status and vital numbers, with what can be done to it. */
export function RunHeader({ detail, onCancel, onRetry, onResume, onExport, exporting, clock, workspace = null }: RunHeaderProps) {
  const run = detail.run;
  const failedTasks = detail.tasks.filter((t) => t.status === 'failed').length;
  const cancelledTasks = detail.tasks.filter((t) => t.status === 'cancelled').length;
  return (
    <header className="run-header">
      <div className="run-title">
        <a href="#/runs" className="back" title="Back to all runs">
          ← Runs
        </a>
        <h1>{run.flowName || run.flow}</h1>
        <StatusBadge status={run.status} />
        {run.retrying && run.status === 'running' && <RetryingBadge retrying={run.retrying} />}
        <div className="run-actions">
          {canCancel(run.status) && (
            <button type="button" className="danger" onClick={onCancel} title="c">
              Cancel run
            </button>
          )}
          {canResume(run.status) && (
            <button type="button" className={run.status === 'interrupted' ? 'primary' : ''} onClick={onResume} title="continue from the last checkpoint">
              Resume
            </button>
          )}
          {canRetry(run.status) && (
            <button type="button" className={run.status === 'interrupted' ? '' : 'primary'} onClick={onRetry} title="r: start a new run of this flow">
              {run.status === 'completed' ? 'Run again' : 'Retry'}
            </button>
          )}
          <button type="button" onClick={onExport} disabled={exporting} title="download every event of this run as JSON">
            {exporting ? 'Exporting…' : 'Export journal'}
          </button>
        </div>
      </div>
      <dl className="run-facts">
        <div>
          <dt>Run</dt>
          <dd className="mono" data-testid="run-id">
            {run.id}
          </dd>
        </div>
        <div>
          <dt>Flow file</dt>
          <dd className="mono">{run.flow}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <RelativeTime ts={run.startedWall} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            <RunDuration run={run} active={run.endedAt === null} />
          </dd>
        </div>
        {clock && (
          <div>
            <dt>Clock</dt>
            <dd title={clock === 'virtual' ? 'waits took no real time: times are the run’s own clock, which jumps over every backoff' : 'wall-clock time'}>
              {clock}
            </dd>
          </div>
        )}
        <div>
          <dt>Step</dt>
          <dd>
            {run.step} <span className="muted">of at most {run.maxSteps}</span>
          </dd>
        </div>
        <div>
          <dt>Tasks</dt>
          <dd>
            {detail.tasks.length}
            {failedTasks > 0 && <span className="error-text"> · {failedTasks} failed</span>}
            {cancelledTasks > 0 && <span className="muted"> · {cancelledTasks} cancelled</span>}
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{run.attempts}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd className={run.errorCount > 0 ? 'error-text' : ''}>
            {run.errorCount > 0 ? <a href={`#/errors?run=${encodeURIComponent(run.id)}&range=all`}>{run.errorCount}</a> : 0}
          </dd>
        </div>
        {workspace && (
          <div>
            <dt>Branch</dt>
            <dd className="mono" title={`in ${workspace.repo}, from ${workspace.base}`} data-testid="run-branch">
              {workspace.branch} @ {workspace.head.slice(0, 10)}
              <span className="muted"> ({workspace.merges === 0 ? 'nothing merged yet' : `${workspace.merges} merge${workspace.merges === 1 ? '' : 's'}`})</span>
            </dd>
          </div>
        )}
        {run.retryOf && (
          <div>
            <dt>Retry of</dt>
            <dd className="mono">
              <a href={hrefToRun(run.retryOf)}>{run.retryOf}</a>
            </dd>
          </div>
        )}
        {run.resumedFrom && (
          <div>
            <dt>Resumed from</dt>
            <dd className="mono">
              <a href={hrefToRun(run.resumedFrom)}>{run.resumedFrom}</a>
            </dd>
          </div>
        )}
      </dl>
      {run.lastError && run.status !== 'completed' && (
        <p className="run-last-error" title={run.lastError.message}>
          <span className="muted">Last error:</span> <code>{run.lastError.code}</code> {run.lastError.message}
        </p>
      )}
    </header>
  );
}
