import { useCallback, useState } from 'react';
import type { BulkAction, BulkResult, BulkRunResult, RunFilterInput, RunSummary } from '../../core/service/api.js';
import { useApi, useRunsStore } from '../app/api-context.js';
import { useConfirm } from '../app/confirm.js';
import { useToast } from '../app/toasts.js';
import { plural } from '../lib/format.js';
import { errorText } from '../lib/use-async.js';
import { runLinks } from './run-actions.js';
import { BULK_EFFECT, confirmLabel, previewText, refusalLines } from './bulk-words.js';

/**
 * One bulk action from the Runs screen: the server previews it (a dry run: which runs it will
 * touch, which it will refuse and why), the operator confirms, then the runs are sent in chunks,
 * one request each, so the window stays responsive and shows progress; the summary keeps every
 * run's result (docs/triage.md "Bulk actions").
 */

/**
 * Ticked runs, or every run matching the Runs filter (resolved by the server). `every` is set when
 * the filter names nothing but statuses ("every failed run"): the dialog says so and the request
 * carries `all`, which the server asks for before it acts on such a filter.
 */
export type BulkTarget = { kind: 'runs'; runs: readonly RunSummary[] } | { kind: 'filter'; filter: RunFilterInput; every: string | null };

function requestOf(target: BulkTarget): { runIds: string[] } | { where: RunFilterInput; all?: true } {
  if (target.kind === 'runs') return { runIds: target.runs.map((r) => r.id) };
  return target.every !== null ? { where: target.filter, all: true } : { where: target.filter };
}

export type BulkState = { phase: 'idle' } | { phase: 'running'; action: BulkAction; done: number; total: number } | { phase: 'finished'; result: BulkResult };

/** Runs per request once confirmed: a progress step each. */
const WINDOW_CHUNK = 50;

const IDLE: BulkState = { phase: 'idle' };

function RefusalList({ results }: { results: readonly BulkRunResult[] }) {
  const lines = refusalLines(results);
  if (lines.length === 0) return null;
  return (
    <ul className="bulk-reasons">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

export function useBulkAction(): { state: BulkState; run: (action: BulkAction, target: BulkTarget) => Promise<boolean>; dismiss: () => void } {
  const api = useApi();
  const store = useRunsStore();
  const confirm = useConfirm();
  const toast = useToast();
  const [state, setState] = useState<BulkState>(IDLE);

  const run = useCallback(
    async (action: BulkAction, target: BulkTarget): Promise<boolean> => {
      let preview: BulkResult;
      try {
        preview = await api.bulkRuns({ action, dryRun: true, ...requestOf(target) });
      } catch (error) {
        toast(`Could not prepare the bulk action: ${errorText(error)}`, 'error');
        return false;
      }
      if (preview.done === 0) {
        setState({ phase: 'finished', result: { ...preview, dryRun: false } });
        return false;
      }
      const ok = await confirm({
        title: `${confirmLabel(action, preview.done)}?`,
        body: (
          <div className="bulk-confirm" data-testid="bulk-confirm">
            <p>{BULK_EFFECT[action]}</p>
            {target.kind === 'filter' && target.every !== null && (
              <p data-testid="bulk-every">The filter names no flow, text, error or time: this takes {target.every}.</p>
            )}
            <p>
              <strong>{previewText(preview)}</strong>
            </p>
            <RefusalList results={preview.results} />
          </div>
        ),
        confirmLabel: confirmLabel(action, preview.done),
        keepLabel: action === 'cancel' ? 'Keep them running' : 'Not now',
        danger: action === 'cancel',
      });
      if (!ok) return false;

      const ids = preview.results.filter((r) => r.outcome === 'done').map((r) => r.runId);
      const results = new Map(preview.results.map((r) => [r.runId, r]));
      setState({ phase: 'running', action, done: 0, total: ids.length });
      for (let at = 0; at < ids.length; at += WINDOW_CHUNK) {
        const chunk = ids.slice(at, at + WINDOW_CHUNK);
        if (action === 'cancel') store.markCancelling(chunk);
        try {
          const answer = await api.bulkRuns({ action, runIds: chunk });
          for (const r of answer.results) results.set(r.runId, r);
        } catch (error) {
          for (const runId of chunk) results.set(runId, { runId, outcome: 'refused', message: errorText(error) });
        }
        const refusedHere = chunk.filter((id) => results.get(id)?.outcome === 'refused');
        if (action === 'cancel' && refusedHere.length > 0) store.revert(refusedHere);
        setState({ phase: 'running', action, done: Math.min(ids.length, at + chunk.length), total: ids.length });
      }
      const all = [...results.values()];
      const done = all.filter((r) => r.outcome === 'done').length;
      setState({ phase: 'finished', result: { action, dryRun: false, matched: all.length, done, refused: all.length - done, results: all } });
      // A retry or resume made new runs: the notice links to them (the summary lists each one too).
      const made = all.flatMap((r) => (r.outcome === 'done' && r.newRunId ? [r.newRunId] : []));
      if (made.length > 0) toast(`${made.length === 1 ? 'Started a new run' : `Started ${plural(made.length, 'new run')}`}:`, 'success', runLinks(made));
      return true;
    },
    [api, store, confirm, toast],
  );

  const dismiss = useCallback(() => setState(IDLE), []);
  return { state, run, dismiss };
}
