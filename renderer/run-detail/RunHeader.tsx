import type { RelatedRun, RunDetail, RunSummary } from '../../core/service/api.js';
import { hrefToCompare, hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime, RunDuration } from '../components/Time.js';
import { canCancel, canResume, canRetry, canStopWatching, isOperable } from '../runs/run-actions.js';
import { RetryingBadge } from '../runs/RunRow.js';
import { LimitWaitNotice, limitWaitOf } from '../components/UsageLimitWait.js';
import { ApprovalNotice, approvalOf } from '../components/ApprovalWait.js';
import { SilenceNotice, silenceOfRun } from '../components/TelemetrySilence.js';
import type { RunWorkView } from './attempt/attempt-work.js';
import { EndingBanner, type ShowAttempt } from './EndingBanner.js';
import { CostFact } from './CostFact.js';
import { waitedWords } from '../lib/waited-words.js';
import { stepWords } from '../lib/step-words.js';

export interface RunHeaderProps {
  detail: RunDetail;
  onCancel: () => void;
  onRetry: () => void;
  onResume: () => void;
  onExport: () => void;
  exporting: boolean;
  /** From the run's runStarted event, once the journal is read. */
  clock: 'real' | 'virtual' | null;
  /** The run's branch of agent work, or null. */
  workspace?: RunWorkView | null;
  /** Brings an attempt of the timeline into view (from the ending error's links). */
  onShowAttempt: ShowAttempt;
}

/** The other direction of retry-of / resumed-from: the runs started from this one, each a link with its status. */
function RelatedRuns({ label, runs, testId }: { label: string; runs: readonly RelatedRun[]; testId: string }) {
  if (runs.length === 0) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>
        {runs.map((r, i) => (
          <span key={r.id}>
            {i > 0 && ', '}
            <a className="mono" href={hrefToRun(r.id)} title={r.status}>
              {r.id}
            </a>{' '}
            <span className="muted">({r.status})</span>
          </span>
        ))}
      </dd>
    </div>
  );
}

/** Compare this run with the one it retries and with the flow's run before it (one link when they are the same run). */
function CompareLinks({ run, previous }: { run: RunSummary; previous: RelatedRun | null }) {
  const links: { href: string; label: string; testId: string }[] = [];
  if (run.retryOf) links.push({ href: hrefToCompare(run.retryOf, run.id), label: 'with the run it retries', testId: 'compare-retry-of' });
  if (previous && previous.id !== run.retryOf)
    links.push({ href: hrefToCompare(previous.id, run.id), label: 'with the previous run of this flow', testId: 'compare-previous' });
  if (links.length === 0) return null;
  return (
    <p className="run-lineage">
      <span className="muted">Compare side by side:</span>
      {links.map((l) => (
        <a key={l.testId} href={l.href} data-testid={l.testId}>
          {l.label}
        </a>
      ))}
    </p>
  );
}

/** What can be done to the run: cancel, resume, retry (Hivewatch's own runs only), export. */
function RunActionButtons({
  run,
  onCancel,
  onRetry,
  onResume,
  onExport,
  exporting,
}: Pick<RunHeaderProps, 'onCancel' | 'onRetry' | 'onResume' | 'onExport' | 'exporting'> & { run: RunDetail['run'] }) {
  return (
    <div className="run-actions">
      {isOperable(run) && canCancel(run.status) && (
        <button type="button" className="danger" onClick={onCancel} title="c">
          Cancel run
        </button>
      )}
      {canStopWatching(run) && (
        <button type="button" className="danger" onClick={onCancel} title="c: end this session's run here; Hivewatch cannot stop the agent">
          Stop watching
        </button>
      )}
      {isOperable(run) && canResume(run.status) && (
        <button type="button" className={run.status === 'interrupted' ? 'primary' : ''} onClick={onResume} title="continue from the last checkpoint">
          Resume
        </button>
      )}
      {isOperable(run) && canRetry(run.status) && (
        <button type="button" className={run.status === 'interrupted' ? '' : 'primary'} onClick={onRetry} title="r: start a new run of this flow">
          {run.status === 'completed' ? 'Run again' : 'Retry'}
        </button>
      )}
      <button type="button" onClick={onExport} disabled={exporting} title="download every event of this run as JSON">
        {exporting ? 'Exporting…' : 'Export journal'}
      </button>
    </div>
  );
}

/** The runs this one came from: the run it retries, the run it resumes. */
function LineageFacts({ run }: { run: RunDetail['run'] }) {
  return (
    <>
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
    </>
  );
}

/** What the run waits on or lacks now, each its own line under the title: a usage limit, a person's approval, its telemetry. */
function RunNotices({ run }: { run: RunDetail['run'] }) {
  return (
    <>
      {limitWaitOf(run) !== null && <LimitWaitNotice at={limitWaitOf(run) as number} clock={run.clock} external={run.source !== undefined} />}
      {approvalOf(run) !== null && <ApprovalNotice approval={approvalOf(run)!} external={run.source !== undefined} />}
      {silenceOfRun(run) !== null && <SilenceNotice silence={silenceOfRun(run)!} />}
    </>
  );
}

/** The run's facts under its title: what, when, how far, what it spent and waited, where it came from. */
function RunFacts({ detail, clock, workspace }: Pick<RunHeaderProps, 'detail' | 'clock' | 'workspace'>) {
  const run = detail.run;
  const failedTasks = detail.tasks.filter((t) => t.status === 'failed').length;
  const cancelledTasks = detail.tasks.filter((t) => t.status === 'cancelled').length;
  return (
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
        <dd title={stepWords(run).title} data-testid="run-step">
          {stepWords(run).text}
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
        {/* Red means the run failed: a completed run's errors were all handled. */}
        <dd className={run.errorCount > 0 && run.status === 'failed' ? 'error-text' : ''}>
          {run.errorCount > 0 ? <a href={`#/errors?run=${encodeURIComponent(run.id)}&range=all`}>{run.errorCount}</a> : 0}
        </dd>
      </div>
      <CostFact usage={run.usage ?? null} status={run.status} />
      {(run.approvalWaitMs ?? 0) > 0 && (
        <div>
          <dt>Waited on a person</dt>
          <dd
            data-testid="run-approval-waited"
            title="time the run waited on a person's answer to permission prompts that closed (a prompt open now is in the notice above)"
          >
            {waitedWords(run.approvalWaitMs ?? 0)}
          </dd>
        </div>
      )}
      {workspace && (
        <div>
          <dt>Branch</dt>
          <dd className="mono" title={`in ${workspace.repo}, from ${workspace.base}`} data-testid="run-branch">
            {workspace.branch} @ {workspace.head.slice(0, 10)}
            <span className="muted"> ({workspace.merges === 0 ? 'nothing merged yet' : `${workspace.merges} merge${workspace.merges === 1 ? '' : 's'}`})</span>
          </dd>
        </div>
      )}
      <LineageFacts run={run} />
      <RelatedRuns label="Retried as" runs={detail.lineage.retries} testId="run-retries" />
      <RelatedRuns label="Resumed as" runs={detail.lineage.resumes} testId="run-resumes" />
    </dl>
  );
}

/** The run's identity, status and vital numbers, with what can be done to it. */
export function RunHeader({ detail, onCancel, onRetry, onResume, onExport, exporting, clock, workspace = null, onShowAttempt }: RunHeaderProps) {
  const run = detail.run;
  return (
    <header className="run-header">
      <div className="run-title">
        <a href="#/runs" className="back" title="Back to all runs">
          ← Runs
        </a>
        <h1>{run.flowName || run.flow}</h1>
        <StatusBadge status={run.status} />
        {run.retrying && run.status === 'running' && limitWaitOf(run) === null && <RetryingBadge retrying={run.retrying} clock={run.clock} />}
        <RunActionButtons run={run} onCancel={onCancel} onRetry={onRetry} onResume={onResume} onExport={onExport} exporting={exporting} />
        <RunNotices run={run} />
      </div>
      <RunFacts detail={detail} clock={clock} workspace={workspace} />
      <CompareLinks run={run} previous={detail.lineage.previous} />
      <EndingBanner run={run} tasks={detail.tasks} onShowAttempt={onShowAttempt} />
    </header>
  );
}
