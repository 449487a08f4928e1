import type { FailureLink } from '../../base/events.js';
import type { RunEnding } from '../../common/ending-chain.js';

/**
 * A failed run's ending error in the words an operator reads first (the CLI's `runs`): the root
 * cause and where it happened, then how the run gave up on it, then what failed after it —
 * "RUNTIME_TIMEOUT in task 2:1 attempt 3 · Request timed out. — gave up after 3 attempts". The
 * window says the same
 * (renderer/lib/failure-headline.ts `failureSummary`, held equal by its store test); the
 * renderer sees only the API's types, so the rule is written in both places.
 */

/** Links whose next link caused them: walking these from the head reaches the root cause. */
const CAUSED_BY: ReadonlySet<FailureLink['how']> = new Set(['retry-limit', 'thrown-in-catch', 'finally-failed']);

/** The index of the root cause in a chain, head first: a cancelled branch's failing cleanup is never it. */
function rootCauseIndex(chain: readonly Pick<FailureLink, 'how'>[]): number {
  let i = 0;
  while (i < chain.length - 1 && CAUSED_BY.has(chain[i]?.how ?? null)) i += 1;
  return i;
}

const attempts = (n: number): string => `${n} attempt${n === 1 ? '' : 's'}`;
const at = (link: Pick<FailureLink, 'taskId' | 'attempt'>): string =>
  link.taskId === null ? '' : link.attempt === null ? ` in task ${link.taskId}` : ` in task ${link.taskId} attempt ${link.attempt}`;

function stepOf(link: FailureLink): string {
  switch (link.how) {
    case 'retry-limit':
      return link.attempt !== null ? `gave up after ${attempts(link.attempt)}` : 'gave up: retry limit reached';
    case 'thrown-in-catch':
      return link.code === 'USER_THROWN' ? `the catch threw “${link.message}”` : `the catch threw ${link.code}`;
    case 'finally-failed':
      return `then a finally failed: ${link.code}${at(link)}`;
    default:
      return '';
  }
}

/** "RUNTIME_TIMEOUT in task 2:1 attempt 3 · Request timed out. — gave up after 3 attempts" (see the module comment). */
export function endingSummary(ending: RunEnding): string {
  const chain = ending.chain;
  const r = rootCauseIndex(chain);
  const root = chain[r];
  if (root === undefined) {
    const where = at(ending);
    return `${ending.code}${where}${ending.message ? ` · ${ending.message}` : ''}`;
  }
  const steps: string[] = [];
  if (root.rethrown === true) steps.push('caught and rethrown');
  for (let i = r - 1; i >= 0; i -= 1) {
    const link = chain[i] as FailureLink;
    const step = stepOf(link);
    if (step) steps.push(step);
    if (link.rethrown === true) steps.push('caught and rethrown');
  }
  for (const link of chain.slice(r + 1)) steps.push(`a cancelled branch’s cleanup then failed: ${link.code}${at(link)}`);
  const head = `${root.code}${at(root)}${root.message ? ` · ${root.message}` : ''}`;
  return steps.length > 0 ? `${head} — ${steps.join('; ')}` : head;
}
