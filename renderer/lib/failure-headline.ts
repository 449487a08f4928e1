import type { EndingError, FailureLink } from '../../core/service/api.js';
import { endOf, whereOf, type AttemptFacts, type ChainPart } from './ending-story.js';

/**
 * "Failed because" in the order an operator reads it: the root cause first (its code, how its
 * process ended, its message, the attempt it happened in), then how the run gave up on it
 * ("gave up after 3 attempts", "the catch threw “deploy failed”"), then what failed after it (a
 * cancelled branch's cleanup). The ending error's own code (POLICY_RETRY_LIMIT_EXCEEDED, a
 * USER_THROWN) is a fact about how it ended, not the reason: it comes last. Pure; the run header,
 * the Runs list, Compare and Flows read it. The CLI says the same through its twin,
 * core/store/projection/ending-words.ts (held equal by failure-headline.store.test.ts).
 */

/** How a link led to the next one when the next one caused it: following these reaches the root cause. */
const CAUSED_BY: ReadonlySet<FailureLink['how']> = new Set(['retry-limit', 'thrown-in-catch', 'finally-failed']);

/**
 * The index of the root cause in a chain (head first): the first link that nothing before it
 * names as its cause. A cancelled branch's failing cleanup follows the failure that killed the
 * step; it did not cause it, so it is never the root.
 */
export function rootCauseIndex(chain: readonly Pick<FailureLink, 'how'>[]): number {
  let i = 0;
  while (i < chain.length - 1 && CAUSED_BY.has(chain[i]?.how ?? null)) i += 1;
  return i;
}

export interface FailureHeadline {
  /** The root cause's code. */
  code: string;
  /** How its attempt's process ended ("exit 2", "signal SIGKILL"), or ''. */
  end: string;
  message: string;
  /** The attempt it happened in: one click away in the timeline. */
  where: ChainPart['where'];
  /** How the run gave up on it, in the order it happened ("gave up after 3 attempts"), or ''. */
  gaveUp: string;
  /** What failed after it and did not cause it (a cancelled branch's cleanup), each a phrase. */
  after: string[];
  /** The ending error's code when it is not the root cause's (a retry limit, a throw), else null. */
  endedAs: string | null;
}

const attempts = (n: number): string => `${n} attempt${n === 1 ? '' : 's'}`;

function where(link: FailureLink, facts: AttemptFacts | undefined): string {
  const at = whereOf(link, facts);
  return at ? ` in ${at.label}` : '';
}

/** One link between the head and the root cause, as the step of giving up it was. */
function stepOf(link: FailureLink, facts: AttemptFacts | undefined): string {
  switch (link.how) {
    case 'retry-limit':
      return link.attempt !== null ? `gave up after ${attempts(link.attempt)}` : 'gave up: retry limit reached';
    case 'thrown-in-catch':
      return link.code === 'USER_THROWN' ? `the catch threw “${link.message}”` : `the catch threw ${link.code}`;
    case 'finally-failed': {
      const end = endOf(link, facts);
      return `then a finally failed: ${link.code}${end ? ` ${end}` : ''}${where(link, facts)}`;
    }
    default:
      return '';
  }
}

/**
 * Why a root cause that ended its task at once was not retried, when the run's detail says:
 * its task allowed no retry, or the error is one no policy retries (not recoverable).
 */
function notRetried(root: FailureLink, facts: AttemptFacts | undefined): string {
  if (!facts || root.taskId === null || root.attempt === null) return '';
  const max = facts.maxAttempts?.(root.taskId) ?? null;
  if (max === 1) return 'no retry was allowed';
  const error = facts.attemptError(root.taskId, root.attempt);
  if (max !== null && max > root.attempt && error?.code === root.code && error.recoverable === false) return 'not retried: the error is not recoverable';
  return '';
}

/** The headline of a failed run's ending error (see the module comment). */
export function failureHeadline(ending: EndingError, facts?: AttemptFacts): FailureHeadline {
  const chain = ending.chain;
  const r = rootCauseIndex(chain);
  const root = chain[r];
  if (root === undefined) {
    // A row written before the chain existed: its ending error is all there is.
    const at = whereOf({ taskId: ending.taskId, attempt: ending.attempt, how: null }, facts);
    return { code: ending.code, end: '', message: ending.message, where: at, gaveUp: '', after: [], endedAs: null };
  }
  const steps: string[] = [];
  for (let i = r - 1; i >= 0; i -= 1) {
    const link = chain[i] as FailureLink;
    const step = stepOf(link, facts);
    if (step) steps.push(step);
    if (link.rethrown === true) steps.push('caught and rethrown');
  }
  if (root.rethrown === true) steps.unshift('caught and rethrown');
  if (r === 0) {
    const why = notRetried(root, facts);
    if (why) steps.unshift(why);
  }
  const after = chain.slice(r + 1).map((link) => {
    const end = endOf(link, facts);
    return `a cancelled branch’s cleanup then failed: ${link.code}${end ? ` ${end}` : ''}${where(link, facts)}`;
  });
  return {
    code: root.code,
    end: endOf(root, facts),
    message: root.message,
    where: whereOf(root, facts),
    gaveUp: steps.join('; '),
    after,
    endedAs: r > 0 ? ending.code : null,
  };
}

/**
 * The headline on one line, with where the root cause happened: "RUNTIME_TIMEOUT in Smoke tests
 * attempt 3 · Request timed out. — gave up after 3 attempts" (a tooltip, Compare, the CLI).
 */
export function failureSummary(ending: EndingError, facts?: AttemptFacts): string {
  const h = failureHeadline(ending, facts);
  const head = `${h.code}${h.end ? ` ${h.end}` : ''}${h.where ? ` in ${h.where.label}` : ''}${h.message ? ` · ${h.message}` : ''}`;
  const tail = [h.gaveUp, ...h.after].filter((s) => s !== '').join('; ');
  return tail ? `${head} — ${tail}` : head;
}
