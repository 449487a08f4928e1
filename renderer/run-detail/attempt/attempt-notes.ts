import type { AttemptView, EndingError, LateResult, TaskView } from '../../../core/service/api.js';
import { formatDelay } from '../../lib/format.js';
import { attemptKey } from './attempt-work.js';

/**
 * What the timeline and the inspector say about an attempt beyond its outcome: whether its error ended the run or was a cause of the error that did (rule 16),
 * and why a stopped attempt stopped (rule 18: a fail-fast sibling's cancel is not an error of its
 * own; rule 12: a result after the operator's cancel changes nothing). Pure.
 */

/** `ended`: the attempt whose error is the run's ending error; `cause`: one further down its chain. */
export type EndingRole = 'ended' | 'cause';

/** The attempts the ending error's chain names (`attemptKey`), with their role. */
export function endingRoles(ending: EndingError | null): Map<string, EndingRole> {
  const roles = new Map<string, EndingRole>();
  if (ending === null) return roles;
  // The head's attempt ended the run (a retry limit names the attempt it gave up after, as its
  // next link does); every other attempt the chain names is a cause. A head that names no
  // attempt (a `throw "message"` in a catch, a failure the run raised itself) leaves only causes.
  ending.chain.forEach((link, i) => {
    if (link.taskId === null || link.attempt === null) return;
    const key = attemptKey(link.taskId, link.attempt);
    if (!roles.has(key)) roles.set(key, i === 0 ? 'ended' : 'cause');
  });
  return roles;
}

export const ROLE_TEXT: Record<EndingRole, string> = {
  ended: 'ended the run',
  cause: 'a cause of the run’s failure',
};

/** What a stopped attempt answered anyway: "it had succeeded", "it had failed: RUNTIME_TIMEOUT". */
function lateResultText(late: LateResult): string {
  if (late.outcome === 'succeeded') return 'it had succeeded';
  return late.error ? `it had failed: ${late.error.code}` : 'it had failed';
}

/** Why an attempt that did not finish on its own stopped, or null for one that did (or still runs). */
export function stopNote(attempt: AttemptView): string | null {
  const late = attempt.lateResult ? ` (${lateResultText(attempt.lateResult)}; nothing acted on it)` : '';
  if (attempt.cancelledBy === 'sibling') return `cancelled: a sibling branch failed${late}`;
  if (attempt.status === 'stale') return `answered after the run was cancelled${late || ': nothing acted on it'}`;
  if (attempt.status === 'cancelled') return `cancelled with its run${late}`;
  return null;
}

/**
 * The wait after an attempt, as the inspector's heading says it: " · then waited 30s: <why>",
 * " · then waits …" while the task is in it, or that the run ended before the next attempt (a
 * backoff cut short by the run's end is not a wait that happened). Null without a backoff.
 */
export function waitAfter(task: TaskView, attempt: AttemptView, virtual: boolean, why: string | undefined): string | null {
  if (attempt.delayAfterMs === null) return null;
  const delay = `${virtual ? 'a virtual ' : ''}${formatDelay(attempt.delayAfterMs)}`;
  const next = task.attempts.some((a) => a.attempt === attempt.attempt + 1);
  if (!next && task.status !== 'waiting') return ` · ${delay} backoff was due; the run ended first`;
  return ` · then ${next ? 'waited' : 'waits'} ${delay}${why ? `: ${why}` : ''}`;
}
