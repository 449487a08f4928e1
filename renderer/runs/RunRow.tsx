import { memo } from 'react';
import type { RunSummary } from '../../core/service/api.js';
import { hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { LimitWaitBadge, limitWaitOf } from '../components/UsageLimitWait.js';
import { ApprovalBadge, ApprovalLine, approvalOf } from '../components/ApprovalWait.js';
import { SilenceLine, silenceOfRun } from '../components/TelemetrySilence.js';
import { Countdown, RelativeTime, RunDuration } from '../components/Time.js';
import { failureHeadline, failureSummary } from '../lib/failure-headline.js';
import { formatDelay } from '../lib/format.js';
import { copyFullId, idTail } from '../lib/run-ids.js';
import { stepWords } from '../lib/step-words.js';
import { runCost, tokenLine } from '../lib/cost-format.js';
import { canCancel, canResume, canRetry, canStopWatching, isOperable } from './run-actions.js';
import { SubagentToggle } from './SubagentToggle.js';

export interface RunRowProps {
  run: RunSummary;
  index: number;
  top: number;
  height: number;
  selected: boolean;
  checked: boolean;
  /** How much of an id's tail tells the listed runs apart (lib/run-ids.ts). */
  idTailLength: number;
  /**
   * The grid's one Tab stop when it is in this row: which of the row's controls (0 the tick box,
   * 1 the run's link, 2… its actions; a larger number means its last) takes Tab; null elsewhere.
   */
  tabItem: number | null;
  onSelect: (index: number) => void;
  onCheck: (runId: string, checked: boolean, range: boolean) => void;
  onCancel: (run: RunSummary) => void;
  onRetry: (run: RunSummary) => void;
  onResume: (run: RunSummary) => void;
  /** The run's subagents are shown under it (subagent-folding.ts). */
  unfolded?: boolean;
  /** Folds or unfolds the run's subagents; absent: the list does not fold. */
  onToggleSubagents?: (runId: string) => void;
}

/**
 * "retrying in 23s": a task of the run waits in backoff before its next attempt. On a virtual
 * clock the wait takes no real time and its due time is the run's own clock: no countdown.
 */
export function RetryingBadge({ retrying, clock }: { retrying: NonNullable<RunSummary['retrying']>; clock: RunSummary['clock'] }) {
  const virtual = clock === 'virtual';
  return (
    <span
      className="badge retrying"
      title={`task ${retrying.taskId} waits ${virtual ? 'a virtual ' : ''}${formatDelay(retrying.delayMs)} before its next attempt`}
    >
      <span className="retry-icon" aria-hidden="true">
        ↻
      </span>
      retrying {virtual ? `(virtual ${formatDelay(retrying.delayMs)})` : <Countdown at={retrying.nextAttemptAt} />}
    </span>
  );
}

/**
 * Why an ended run ended, under its flow's name: a failed run's root cause in red and how the
 * run gave up on it ("RUNTIME_TIMEOUT · gave up after 3 attempts"; the tooltip has its message;
 * a code filter finds the run by either code); a cancelled or interrupted run's quietly (neither
 * is a failure). Nothing for a live or completed run.
 */
function EndingCode({ run }: { run: RunSummary }) {
  const ending = run.endingError;
  if (ending === null || (run.status !== 'failed' && run.status !== 'cancelled' && run.status !== 'interrupted')) return null;
  if (run.status !== 'failed') {
    return (
      <span className="cell-sub muted ending-code-cell" title={ending.message} data-testid="run-ending-code">
        {ending.code}
      </span>
    );
  }
  const h = failureHeadline(ending);
  const endedAs = h.endedAs ? ` (the run ended with ${h.endedAs})` : '';
  return (
    <span className="cell-sub error-text ending-code-cell" title={`${failureSummary(ending)}${endedAs}`} data-testid="run-ending-code">
      {h.code}
      {h.gaveUp && <span className="ending-how"> · {h.gaveUp}</span>}
    </span>
  );
}

/**
 * What the run spent, by outcome: "$0.42 · $0.17 retried · $0.25 successful", "$2.58 · failed
 * run"; nothing when it reported no usage. Where the column is narrow the successful share steps
 * aside (cost.css); the title says it all.
 */
function RowCost({ run }: { run: RunSummary }) {
  const cost = run.usage ? runCost(run.usage, run.status) : null;
  if (cost === null || !run.usage) return null;
  return (
    <span className="cell-sub run-row-cost" data-testid="run-row-cost" title={`${cost.sentence} ${tokenLine(run.usage)}.`}>
      {cost.total}
      {cost.failure !== null && <> · {cost.failure}</>}
      {cost.success !== null && <span className="cost-success"> · {cost.success}</span>}
    </span>
  );
}

interface RowAction {
  label: string;
  ariaLabel?: string;
  className: string;
  onClick: () => void;
}

/** What can be done to the run from its row, in the order the arrow keys reach it. */
function rowActions(run: RunSummary, on: Pick<RunRowProps, 'onCancel' | 'onRetry' | 'onResume'>): RowAction[] {
  const actions: RowAction[] = [];
  if (isOperable(run) && canCancel(run.status))
    actions.push({ label: 'Cancel', ariaLabel: `Cancel run ${run.id}`, className: 'small danger-outline', onClick: () => on.onCancel(run) });
  if (canStopWatching(run))
    actions.push({ label: 'Stop watching', ariaLabel: `Stop watching session ${run.id}`, className: 'small danger-outline', onClick: () => on.onCancel(run) });
  if (isOperable(run) && canResume(run.status) && run.status === 'interrupted')
    actions.push({ label: 'Resume', className: 'small', onClick: () => on.onResume(run) });
  if (isOperable(run) && canRetry(run.status) && run.status !== 'completed')
    actions.push({ label: 'Retry', ariaLabel: `Retry run ${run.id}`, className: 'small', onClick: () => on.onRetry(run) });
  return actions;
}

/** The status cell: the run's status, and what it waits for (a usage limit, a retry, a person). */
function StatusCell({ run }: { run: RunSummary }) {
  return (
    <div role="gridcell" className="cell-status">
      <StatusBadge status={run.status} />
      {limitWaitOf(run) !== null ? (
        <LimitWaitBadge at={limitWaitOf(run) as number} clock={run.clock} external={run.source !== undefined} />
      ) : (
        run.retrying && run.status !== 'cancelling' && <RetryingBadge retrying={run.retrying} clock={run.clock} />
      )}
      {approvalOf(run) !== null && <ApprovalBadge approval={approvalOf(run)!} />}
    </div>
  );
}

/** The flow cell: the run's link and what it is (a session, a retry, a resume), then its fold toggle and facts. */
function FlowCell({
  run,
  fold,
  unfolded,
  onToggleSubagents,
  tab,
}: {
  run: RunSummary;
  fold: boolean;
  unfolded: boolean;
  onToggleSubagents: ((runId: string) => void) | undefined;
  tab: (item: number) => number;
}) {
  return (
    <div role="gridcell" className="cell-flow">
      <div className="flow-line">
        <a href={hrefToRun(run.id)} className="run-link" title={run.flow} data-item={1} tabIndex={tab(1)}>
          {run.flowName || run.flow}
        </a>
        {run.source && (
          <span className="cell-sub" title="an agent session seen through its telemetry (not started by Hivewatch)">
            {run.source}
          </span>
        )}
        {run.retryOf && (
          <span className="cell-sub" title={`a retry of ${run.retryOf}`}>
            retry
          </span>
        )}
        {run.resumedFrom && (
          <span className="cell-sub" title={`resumed from ${run.resumedFrom}`}>
            resumed
          </span>
        )}
      </div>
      <div className="flow-sub">
        {fold && (
          <SubagentToggle
            runId={run.id}
            count={run.subagents ?? 0}
            unfolded={unfolded}
            onToggle={onToggleSubagents as (runId: string) => void}
            tabIndex={tab(2)}
          />
        )}
        {approvalOf(run) !== null && <ApprovalLine approval={approvalOf(run)!} />}
        {silenceOfRun(run) !== null && <SilenceLine silence={silenceOfRun(run)!} />}
        <EndingCode run={run} />
        <RowCost run={run} />
      </div>
    </div>
  );
}

/** One row of the runs table; memoized so a live event re-renders only the rows it changed. */
export const RunRow = memo(function RunRow({
  run,
  index,
  top,
  height,
  selected,
  checked,
  idTailLength,
  tabItem,
  onSelect,
  onCheck,
  onCancel,
  onRetry,
  onResume,
  unfolded = false,
  onToggleSubagents,
}: RunRowProps) {
  const actions = rowActions(run, { onCancel, onRetry, onResume });
  // A run with subagents has its fold toggle after its link: the actions come after it.
  const fold = (run.subagents ?? 0) > 0 && onToggleSubagents !== undefined ? 1 : 0;
  const last = actions.length + 1 + fold;
  const tab = (item: number): number => (tabItem !== null && Math.min(tabItem, last) === item ? 0 : -1);
  return (
    <div
      className={`grid-row runs-grid${selected ? ' selected' : ''}${checked ? ' checked' : ''}${run.spawnedBy ? ' run-subagent' : ''}`}
      role="row"
      aria-selected={selected}
      aria-rowindex={index + 2}
      data-run-id={run.id}
      data-status={run.status}
      style={{ top, height }}
      onMouseDown={() => onSelect(index)}
    >
      <div role="gridcell" className="cell-check">
        <input
          type="checkbox"
          checked={checked}
          data-item={0}
          tabIndex={tab(0)}
          aria-label={`Select run ${run.id}`}
          onChange={(e) => onCheck(run.id, e.currentTarget.checked, (e.nativeEvent as MouseEvent).shiftKey)}
        />
      </div>
      <StatusCell run={run} />
      <FlowCell run={run} fold={fold === 1} unfolded={unfolded} onToggleSubagents={onToggleSubagents} tab={tab} />
      <div role="gridcell" className="cell-id col-secondary mono" title={run.id} onCopy={(e) => copyFullId(e, run.id)}>
        {idTail(run.id, idTailLength)}
      </div>
      <div role="gridcell" className="cell-time">
        <RelativeTime ts={run.startedWall} />
      </div>
      <div role="gridcell" className="cell-num">
        <RunDuration run={run} active={run.status === 'running' || run.status === 'cancelling' || run.status === 'queued'} compact />
      </div>
      <div role="gridcell" className="cell-num col-secondary" title={stepWords(run).title}>
        {stepWords(run).text}
      </div>
      <div role="gridcell" className="cell-num col-secondary">
        {run.attempts}
      </div>
      {/* Red means the run failed; a completed run's errors were all handled. */}
      <div role="gridcell" className={`cell-num col-secondary${run.errorCount === 0 ? ' muted' : run.status === 'failed' ? ' error-text' : ''}`}>
        {run.errorCount}
      </div>
      <div role="gridcell" className="cell-actions">
        {actions.map((a, i) => (
          <button
            key={a.label}
            type="button"
            className={a.className}
            onClick={a.onClick}
            aria-label={a.ariaLabel}
            data-item={i + 2 + fold}
            tabIndex={tab(i + 2 + fold)}
          >
            {a.label}
          </button>
        ))}
      </div>
    </div>
  );
});
