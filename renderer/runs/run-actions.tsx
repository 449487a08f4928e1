import { useCallback } from 'react';
import type { CommandAck, RunStatus, RunSummary } from '../../core/service/api.js';
import { useApi, useRunsStore } from '../app/api-context.js';
import { useConfirm } from '../app/confirm.js';
import { hrefToRun, navigate } from '../app/router.js';
import { useToast, type ToastLink } from '../app/toasts.js';
import { plural } from '../lib/format.js';
import { idTail } from '../lib/run-ids.js';
import { errorText } from '../lib/use-async.js';

/** What an operator may do with a run in a given status (mirrors the service's checks). */
export function canCancel(status: RunStatus): boolean {
  return status === 'queued' || status === 'running';
}
export function canRetry(status: RunStatus): boolean {
  return status === 'failed' || status === 'cancelled' || status === 'interrupted' || status === 'completed';
}
/**
 * Retry from a selection of runs: ended runs that did not succeed. A completed run can be retried
 * on its own (its row or page), never swept into a bulk retry.
 */
export function canBulkRetry(status: RunStatus): boolean {
  return canRetry(status) && status !== 'completed';
}
export function canResume(status: RunStatus): boolean {
  return status === 'failed' || status === 'cancelled' || status === 'interrupted';
}
/**
 * Whether Hivewatch runs it and so can cancel, retry or resume it: an external run (an agent
 * session seen through its telemetry) is watched only; the service refuses commands.
 */
export function isOperable(run: Pick<RunSummary, 'source'>): boolean {
  return run.source === undefined;
}

/**
 * An external session stopped by its usage limit or waiting for a person's approval: the external
 * runs a cancel acts on. Hivewatch cannot stop the agent CLI, so it stops watching: the run ends
 * cancelled, an open prompt with it (docs/otel.md).
 */
export function canStopWatching(run: Pick<RunSummary, 'source' | 'status' | 'waitingUntil' | 'approval'>): boolean {
  return run.source !== undefined && run.status === 'running' && (run.waitingUntil != null || run.approval != null);
}

/** The confirmation of a cancel: of Hivewatch's own runs, or of watched sessions it can only stop watching. */
function cancelQuestion(runs: readonly RunSummary[]) {
  if (!runs.every(canStopWatching)) {
    return {
      title: runs.length === 1 ? 'Cancel this run?' : `Cancel ${plural(runs.length, 'run')}?`,
      body: (
        <p>
          {describe(runs)} will stop: tasks in flight are terminated, nothing of the current step is committed, and the run ends <code>cancelled</code>. You can
          resume or retry it afterwards.
        </p>
      ),
      confirmLabel: runs.length === 1 ? 'Cancel run' : `Cancel ${plural(runs.length, 'run')}`,
      keepLabel: runs.length === 1 ? 'Keep running' : 'Keep them running',
      danger: true,
    };
  }
  return {
    title: runs.length === 1 ? 'Stop watching this session?' : `Stop watching ${plural(runs.length, 'session')}?`,
    body: (
      <p>
        {describe(runs)} is an agent session Hivewatch only watches: it cannot stop or restart the agent. Its run ends <code>cancelled</code> here, a permission
        prompt it waits on with it; if the agent sends telemetry again (you resume it, or a person answers its prompt), the run reopens.
      </p>
    ),
    confirmLabel: 'Stop watching',
    keepLabel: 'Keep watching',
    danger: true,
  };
}

/** The reason a stopped session's cancel journals: the agent goes on wherever it runs. */
const STOP_WATCHING_REASON = 'the operator stopped watching this session (Hivewatch cannot stop the agent)';

function describe(runs: readonly RunSummary[]): string {
  const first = runs[0];
  if (runs.length === 1 && first) return `${first.flowName} (${idTail(first.id)})`;
  return plural(runs.length, 'run');
}

/** Links to runs an action started (at most MAX_LINKED; the rest are counted), each by its id's tail. */
const MAX_LINKED = 5;
export function runLinks(ids: readonly string[]): ToastLink[] {
  const links: ToastLink[] = ids.slice(0, MAX_LINKED).map((id) => ({ href: hrefToRun(id), label: idTail(id), title: id }));
  if (ids.length > MAX_LINKED) links.push({ href: '#/runs', label: `and ${ids.length - MAX_LINKED} more in Runs` });
  return links;
}

export interface RunActions {
  /** Asks, then cancels; the rows show `cancelling` at once. Resolves true when confirmed. */
  cancel(runs: readonly RunSummary[]): Promise<boolean>;
  /** Asks, then starts a new run of each; with one run, opens the new run. */
  retry(runs: readonly RunSummary[], options?: { open?: boolean; bulk?: boolean }): Promise<boolean>;
  /** Asks, then resumes from the last checkpoint and opens the new run. */
  resume(run: RunSummary): Promise<boolean>;
}

/** The runs whose cancel failed or was refused, with what was said about them. */
function refusalsOf(ids: readonly string[], results: readonly PromiseSettledResult<CommandAck>[]): { refused: string[]; messages: string[] } {
  const refused: string[] = [];
  const messages: string[] = [];
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      refused.push(ids[i] as string);
      messages.push(errorText(result.reason));
    } else if (!result.value.accepted) {
      refused.push(ids[i] as string);
      if (result.value.message) messages.push(result.value.message);
    }
  });
  return { refused, messages };
}

export function useRunActions(): RunActions {
  const api = useApi();
  const store = useRunsStore();
  const confirm = useConfirm();
  const toast = useToast();

  const cancel = useCallback<RunActions['cancel']>(
    async (candidates) => {
      // An external run (agent telemetry) is not Hivewatch's to cancel (the service refuses it), unless its usage limit stopped it.
      const runs = candidates.filter((r) => (canCancel(r.status) && isOperable(r)) || canStopWatching(r));
      if (runs.length === 0) {
        toast('Nothing to cancel: only queued or running runs can be cancelled.', 'info');
        return false;
      }
      const ok = await confirm(cancelQuestion(runs));
      if (!ok) return false;
      const ids = runs.map((r) => r.id);
      store.markCancelling(ids);
      const results = await Promise.allSettled(
        runs.map((r) => api.cancelRun({ runId: r.id, reason: canStopWatching(r) ? STOP_WATCHING_REASON : 'cancelled by the operator' })),
      );
      const { refused, messages } = refusalsOf(ids, results);
      if (refused.length > 0) {
        store.revert(refused);
        toast(`Could not cancel ${plural(refused.length, 'run')}: ${messages[0] ?? 'refused'}`, 'error');
      } else {
        toast(`Cancel requested for ${describe(runs)}.`, 'success');
      }
      return true;
    },
    [api, store, confirm, toast],
  );

  const retry = useCallback<RunActions['retry']>(
    async (candidates, options = {}) => {
      const runs = candidates.filter((r) => isOperable(r) && (options.bulk ? canBulkRetry(r.status) : canRetry(r.status)));
      if (runs.length === 0) {
        toast(
          options.bulk
            ? 'Nothing to retry: only failed, cancelled or interrupted runs are retried together.'
            : 'Nothing to retry: a run can be retried once it has ended.',
          'info',
        );
        return false;
      }
      const ok = await confirm({
        title: runs.length === 1 ? 'Retry this run?' : `Retry ${plural(runs.length, 'run')}?`,
        body: <p>A new run of the same flow starts from the beginning for {describe(runs)}, with the same options. The original stays as it is.</p>,
        confirmLabel: runs.length === 1 ? 'Start new run' : `Start ${plural(runs.length, 'new run')}`,
      });
      if (!ok) return false;
      const results = await Promise.allSettled(runs.map((r) => api.retryRun({ runId: r.id })));
      const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.runId] : []));
      const failed = results.flatMap((r) => (r.status === 'rejected' ? [errorText(r.reason)] : []));
      if (failed.length > 0) toast(`Could not retry ${plural(failed.length, 'run')}: ${failed[0]}`, 'error');
      if (started.length > 0)
        toast(started.length === 1 ? 'Started a new run:' : `Started ${plural(started.length, 'new run')}:`, 'success', runLinks(started));
      const only = started[0];
      if (options.open && started.length === 1 && only) navigate(hrefToRun(only));
      return true;
    },
    [api, confirm, toast],
  );

  const resume = useCallback<RunActions['resume']>(
    async (run) => {
      const ok = await confirm({
        title: 'Resume this run?',
        body: <p>A new run continues {describe([run])} from its last checkpoint: committed steps are not run again.</p>,
        confirmLabel: 'Resume',
      });
      if (!ok) return false;
      try {
        const { runId } = await api.resumeRun({ runId: run.id });
        toast('Resumed from the last checkpoint as', 'success', runLinks([runId]));
        navigate(hrefToRun(runId));
      } catch (error) {
        toast(`Could not resume: ${errorText(error)}`, 'error');
      }
      return true;
    },
    [api, confirm, toast],
  );

  return { cancel, retry, resume };
}
