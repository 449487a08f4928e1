import type { HivewatchEvent } from '../../../core/service/api.js';

/**
 * What agent work journaled about each attempt, and the run's branch, read from the
 * run's events: the timeline shows it beside the attempt's error. Pure, for tests.
 */

type CheckFinished = Extract<HivewatchEvent, { type: 'checkFinished' }>;
type CheckView = Pick<CheckFinished, 'name' | 'kind' | 'ok' | 'exitCode' | 'signal' | 'timedOut' | 'durationMs' | 'outputTail'>;

export interface AttemptWork {
  checks: CheckView[];
  changed: { path: string; status: string }[] | null;
  diffStat: string;
  outsideScope: string[];
  commit: string | null;
  feedback: string | null;
}

export interface RunWorkView {
  repo: string;
  branch: string;
  base: string;
  /** The branch's head after the last merge (the base when nothing merged yet). */
  head: string;
  merges: number;
}

export const attemptKey = (taskId: string, attempt: number): string => `${taskId}#${attempt}`;

const empty = (): AttemptWork => ({ checks: [], changed: null, diffStat: '', outsideScope: [], commit: null, feedback: null });

export function indexAttemptWork(events: readonly HivewatchEvent[]): Map<string, AttemptWork> {
  const index = new Map<string, AttemptWork>();
  const at = (taskId: string, attempt: number): AttemptWork => {
    const key = attemptKey(taskId, attempt);
    let work = index.get(key);
    if (!work) index.set(key, (work = empty()));
    return work;
  };
  for (const e of events) {
    switch (e.type) {
      case 'attemptStarted':
        if (e.feedback !== undefined) at(e.taskId, e.attempt).feedback = e.feedback;
        break;
      case 'attemptChanges': {
        const work = at(e.taskId, e.attempt);
        work.changed = e.changed;
        work.diffStat = e.diffStat;
        work.outsideScope = e.outsideScope;
        break;
      }
      case 'checkFinished': {
        const { name, kind, ok, exitCode, signal, timedOut, durationMs, outputTail } = e;
        at(e.taskId, e.attempt).checks.push({ name, kind, ok, exitCode, signal, timedOut, durationMs, outputTail });
        break;
      }
      case 'attemptCommitted':
        at(e.taskId, e.attempt).commit = e.commit;
        break;
      default:
        break;
    }
  }
  return index;
}

export function runWorkOf(events: readonly HivewatchEvent[]): RunWorkView | null {
  const view: { current: RunWorkView | null } = { current: null };
  for (const e of events) {
    if (e.type === 'workspaceReady') view.current = { repo: e.repo, branch: e.branch, base: e.base, head: e.base, merges: 0 };
    else if (e.type === 'branchMerged' && view.current) view.current = { ...view.current, head: e.head, merges: view.current.merges + 1 };
  }
  return view.current;
}

/** One line for an attempt bar's tooltip: "checks 1/2 passed · 3 files changed · committed 1a2b3c4". */
export function workSummary(work: AttemptWork | undefined): string | null {
  if (!work) return null;
  const parts: string[] = [];
  const checks = work.checks.filter((c) => c.kind !== 'setup');
  if (checks.length > 0) parts.push(`checks ${checks.filter((c) => c.ok).length}/${checks.length} passed`);
  if (work.changed !== null)
    parts.push(
      `${work.changed.length} file${work.changed.length === 1 ? '' : 's'} changed${work.outsideScope.length ? `, ${work.outsideScope.length} outside scope` : ''}`,
    );
  if (work.commit) parts.push(`committed ${work.commit.slice(0, 10)}`);
  return parts.length ? parts.join(' · ') : null;
}
