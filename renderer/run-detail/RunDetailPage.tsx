import { useCallback, useMemo, useState } from 'react';
import type { TaskView } from '../../core/service/api.js';
import { useApi, useRunsSnapshot } from '../app/api-context.js';
import { useShortcuts } from '../app/keyboard.js';
import { runTitle, useScreenTitle } from '../app/page-title.js';
import { hrefToRun, navigate, useRoute } from '../app/router.js';
import { useToast } from '../app/toasts.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { StaleNote } from '../components/StaleNote.js';
import { attemptWalls } from '../lib/run-clock.js';
import { errorText } from '../lib/use-async.js';
import { isActive, isTerminal } from '../../core/common/run-statuses.js';
import { useRunActions } from '../runs/run-actions.js';
import { AgentTreePanel } from './agent-tree/AgentTreePanel.js';
import { EventLog } from './journal/EventLog.js';
import { exportJournal } from './export-journal.js';
import { indexAttemptInspections } from './attempt/attempt-inspection.js';
import { indexAttemptWork, runWorkOf } from './attempt/attempt-work.js';
import { judgmentWaits } from './timeline/judgment-wait.js';
import { backoffReasons } from './timeline/backoff-explanation.js';
import { RetryTimeline } from './timeline/RetryTimeline.js';
import { RunHeader } from './RunHeader.js';
import { StepsStrip } from './StepsStrip.js';
import { useRunDetail } from './use-run-detail.js';
import { formatCount } from '../lib/format.js';

/**
 * The header's ending error names an attempt: a click selects it in the timeline, scrolled into
 * view and focused (`focusRequest` brings it forward again when the same link is clicked twice).
 */
function useShowAttempt(runId: string): { focusRequest: number; showAttempt: (taskId: string, attempt: number | null) => void } {
  const [focusRequest, setFocusRequest] = useState(0);
  const showAttempt = useCallback(
    (taskId: string, attempt: number | null) => {
      navigate(hrefToRun(runId, { task: taskId, attempt: attempt !== null ? String(attempt) : undefined }), { replace: true });
      setFocusRequest((n) => n + 1);
    },
    [runId],
  );
  return { focusRequest, showAttempt };
}

/** Exporting the journal and skipping a backoff, each reported in a toast. */
function useJournalActions(runId: string): { exporting: boolean; onExport: () => Promise<void>; onSkipBackoff: (task: TaskView) => Promise<void> } {
  const api = useApi();
  const toast = useToast();
  const [exporting, setExporting] = useState(false);
  const onExport = async (): Promise<void> => {
    setExporting(true);
    try {
      const n = await exportJournal(api, runId);
      toast(`Exported ${n} events.`, 'success');
    } catch (error) {
      toast(`Export failed: ${errorText(error)}`, 'error');
    } finally {
      setExporting(false);
    }
  };
  const onSkipBackoff = async (task: TaskView): Promise<void> => {
    try {
      const ack = await api.skipBackoff({ runId, taskId: task.taskId });
      toast(ack.accepted ? `“${task.name}” retries now.` : `Not skipped: ${ack.message ?? 'the task is not waiting'}`, ack.accepted ? 'success' : 'info');
    } catch (error) {
      toast(`Could not skip the backoff: ${errorText(error)}`, 'error');
    }
  };
  return { exporting, onExport, onSkipBackoff };
}

/** One run: header and actions, the retry timeline, the steps, the journal. */
export function RunDetailPage({ runId }: { runId: string }) {
  const actions = useRunActions();
  const { params } = useRoute();
  const state = useRunDetail(runId);
  const snapshot = useRunsSnapshot();
  const { exporting, onExport, onSkipBackoff } = useJournalActions(runId);
  const { focusRequest, showAttempt } = useShowAttempt(runId);
  const detail = state.detail;
  // When each attempt started and ended, in wall time (the journal's, not the run's clock).
  const walls = useMemo(() => attemptWalls(state.events), [state.events, state.eventsVersion]);

  const liveStatus = snapshot.runs.get(runId)?.status;
  useScreenTitle(runTitle(runId, detail ? (liveStatus && !isTerminal(detail.run.status) ? liveStatus : detail.run.status) : null));
  useShortcuts({
    c: () => detail && void actions.cancel([detail.run]),
    r: () => detail && void actions.retry([detail.run], { open: true }),
  });

  if (state.phase === 'loading' && !detail) return <Loading what="the run" />;
  if (state.phase === 'missing')
    return (
      <EmptyState title="No such run">
        There is no run <code>{runId}</code> in this database. <a href="#/runs">Back to all runs</a>
      </EmptyState>
    );
  if (state.phase === 'error' || !detail) return <ErrorState title="Could not load the run" error={state.error ?? 'unknown error'} onRetry={state.reload} />;

  const first = state.events[0];
  // Derived from the journal on each render (a linear pass; the journal is already in memory).
  const work = indexAttemptWork(state.events);
  const workspace = runWorkOf(state.events);
  const reasons = backoffReasons(state.events);
  const inspections = indexAttemptInspections(state.events);
  const waits = judgmentWaits(state.events);
  const live = snapshot.runs.get(runId);
  // The table's live row is ahead of the detail's last read (and shows `cancelling` at once).
  // A run the detail already read as ended stays ended, whatever a lagging row says.
  const run = live && !isTerminal(detail.run.status) ? { ...detail.run, ...live } : detail.run;
  const active = isActive(run.status);

  return (
    <section className="page run-detail" aria-label={`Run ${run.id}`}>
      <StaleNote />
      <RunHeader
        detail={{ ...detail, run }}
        onCancel={() => void actions.cancel([run])}
        onRetry={() => void actions.retry([run], { open: true })}
        onResume={() => void actions.resume(run)}
        onExport={() => void onExport()}
        exporting={exporting}
        clock={first?.type === 'runStarted' ? first.options.clock : null}
        workspace={workspace}
        onShowAttempt={showAttempt}
      />
      {detail.agentTree ? <AgentTreePanel tree={detail.agentTree} runId={run.id} /> : null}
      <section className="panel" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Retry timeline</h2>
        <RetryTimeline
          detail={detail}
          active={active}
          focusTask={params.get('task')}
          focusAttempt={params.get('attempt') ? Number(params.get('attempt')) : null}
          focusRequest={focusRequest}
          walls={walls}
          onSkipBackoff={(t) => void onSkipBackoff(t)}
          work={work}
          reasons={reasons}
          inspections={inspections}
          judgmentWaits={waits}
        />
      </section>
      <section className="panel" aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        <StepsStrip steps={detail.steps} tasks={detail.tasks} maxSteps={run.maxSteps} virtual={run.clock === 'virtual'} />
      </section>
      <section className="panel panel-log" aria-labelledby="events-title">
        <h2 id="events-title">
          Event log <span className="muted">({formatCount(state.events.length)} events)</span>
        </h2>
        <EventLog events={state.events} version={state.eventsVersion} virtual={run.clock === 'virtual'} />
      </section>
    </section>
  );
}
