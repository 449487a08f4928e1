import type { BulkAction, BulkResult, BulkRunResult, RunFilterInput } from '../../core/service/api.js';
import { formatCount, plural } from '../lib/format.js';

/**
 * The words of the bulk actions (docs/triage.md "Bulk actions"): what each does to which
 * statuses, its progress and its summary. Pure, so the dialog, the status line and their tests
 * say the same thing.
 */

export const BULK_LABEL: Record<BulkAction, string> = { cancel: 'Cancel', retry: 'Retry', resume: 'Resume', retryNow: 'Retry now' };
const DOING: Record<BulkAction, string> = { cancel: 'Cancelling', retry: 'Retrying', resume: 'Resuming', retryNow: 'Retrying now' };
const DONE: Record<BulkAction, string> = { cancel: 'cancelled', retry: 'retried', resume: 'resumed', retryNow: 'retried now' };

/** What the action does, and to which statuses; everything else is refused, run by run. */
export const BULK_EFFECT: Record<BulkAction, string> = {
  cancel:
    'Queued and running runs stop: tasks in flight are terminated, nothing of the current step is committed, and each run ends cancelled. Runs that already ended are left as they are.',
  retry:
    'Each failed, cancelled or interrupted run starts again from the beginning as a new run of the same flow, with the same options; the originals stay as they are. Active and completed runs are left alone.',
  resume:
    'Each failed, cancelled or interrupted run continues from its last checkpoint as a new run: committed steps are not run again. Other runs are left alone.',
  retryNow:
    'Running runs waiting out a retry backoff start their next attempt now instead of at the scheduled time. Runs not waiting in a backoff are left alone.',
};

/** What became of one run the action was done to ("cancelled", "retried"). */
export function doneWord(action: BulkAction): string {
  return DONE[action];
}

export function progressText(action: BulkAction, done: number, total: number): string {
  return `${DOING[action]}… ${formatCount(done)} of ${plural(total, 'run')}`;
}

/** "198 cancelled, 2 refused". */
export function summaryText(result: Pick<BulkResult, 'action' | 'done' | 'refused'>): string {
  return `${formatCount(result.done)} ${DONE[result.action]}, ${formatCount(result.refused)} refused`;
}

/** The dialog's count line: how many of the runs the action will touch, how many it will refuse. */
export function previewText(preview: Pick<BulkResult, 'action' | 'matched' | 'done' | 'refused'>): string {
  const will = `${formatCount(preview.done)} of ${plural(preview.matched, 'run')} will be ${DONE[preview.action]}`;
  return preview.refused === 0 ? `${will}.` : `${will}; ${formatCount(preview.refused)} will be refused:`;
}

export function confirmLabel(action: BulkAction, count: number): string {
  return action === 'retryNow' ? `Retry ${plural(count, 'run')} now` : `${BULK_LABEL[action]} ${plural(count, 'run')}`;
}

/** Refusals shown in full before the rest are counted. */
const REFUSALS_SHOWN = 3;

/**
 * The refusals as lines: runs refused for the same reason (the server's message with the run's own
 * id set aside) share one line, "… — and 4 more runs like it", so 200 completed runs do not read
 * as 200 different reasons.
 */
export function refusalLines(results: readonly BulkRunResult[]): string[] {
  const groups = new Map<string, { first: string; count: number }>();
  for (const r of results) {
    if (r.outcome !== 'refused') continue;
    const message = r.message ?? `run ${r.runId} was refused`;
    const key = message.split(r.runId).join('\u0000');
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { first: message, count: 1 });
  }
  const all = [...groups.values()];
  const lines = all.slice(0, REFUSALS_SHOWN).map((g) => (g.count === 1 ? g.first : `${g.first} — and ${plural(g.count - 1, 'more run')} like it`));
  const rest = all.slice(REFUSALS_SHOWN).reduce((sum, g) => sum + g.count, 0);
  if (rest > 0) lines.push(`and ${plural(rest, 'more run')} refused for other reasons`);
  return lines;
}

/**
 * What a filter that narrows the runs by nothing but their status takes: "every failed run",
 * "every run"; null when it names a flow, a text, an error, an issue or a time. Acting on such a
 * filter is acting on all of those runs, so the window says so and sends `all` (the server
 * refuses such a filter without it).
 */
export function everyRunOfFilter(filter: RunFilterInput): string | null {
  const narrows = Object.entries(filter).some(([key, value]) => key !== 'status' && value !== undefined);
  if (narrows) return null;
  const statuses = filter.status ?? [];
  if (statuses.length === 0) return 'every run';
  const last = statuses[statuses.length - 1] ?? '';
  return `every ${statuses.length === 1 ? last : `${statuses.slice(0, -1).join(', ')} or ${last}`} run`;
}
