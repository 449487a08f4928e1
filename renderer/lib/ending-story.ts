import type { EndingError, ErrorEnvelope, FailureLink, RunStatus, TaskView } from '../../core/service/api.js';

/**
 * Why a run ended, in the operator's words (rule 16, docs/semantics.md F1, F2): the
 * ending error's cause chain as a short list, head first ("retry limit after 4 attempts →
 * RUNTIME_CRASHED exit 2 in Deploy attempt 4"), and the sentence a cancelled or interrupted run
 * gets instead. Pure; the run header, the Runs list, Compare and the notifications read it.
 */

/** What a chain's wording can name when the run's detail is at hand: task names, attempt errors. */
export interface AttemptFacts {
  taskName(taskId: string): string | null;
  /** The error an attempt ended with (its envelope carries the exit code or signal). */
  attemptError(taskId: string, attempt: number): ErrorEnvelope | null;
  /** How many attempts the task allowed (0: no limit of its own), or null when unknown. */
  maxAttempts?(taskId: string): number | null;
  /** The task's prompt as the flow wrote it, when its name filled in values. */
  taskTemplate?(taskId: string): string | null;
}

/** The facts a run detail's tasks give. */
export function factsOf(tasks: readonly TaskView[]): AttemptFacts {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  return {
    taskName: (taskId) => byId.get(taskId)?.name ?? null,
    attemptError: (taskId, attempt) => byId.get(taskId)?.attempts.find((a) => a.attempt === attempt)?.error ?? null,
    maxAttempts: (taskId) => byId.get(taskId)?.maxAttempts ?? null,
    taskTemplate: (taskId) => byId.get(taskId)?.template ?? null,
  };
}

/** One link of the chain as it reads. */
export interface ChainPart {
  /** How it follows from the link before it ("→", "→ thrown while handling", …); '' on the head. */
  lead: string;
  /** The error: "retry limit after 4 attempts", "RUNTIME_CRASHED exit 2", `USER_THROWN “deploy failed”`. */
  what: string;
  code: string;
  /** How the attempt's process ended, when its error says: "exit 2", "signal SIGSEGV", or ''. */
  end: string;
  /** The attempt it happened in, when it names one: one click away in the timeline (`template`: the task's prompt as written). */
  where: { taskId: string; attempt: number | null; label: string; template?: string } | null;
  rethrown: boolean;
}

/** How a link leads to the next one, said on the next one (FailureLink.how). */
const LEADS: Record<NonNullable<FailureLink['how']>, string> = {
  'retry-limit': '→',
  'thrown-in-catch': '→ thrown while handling',
  'finally-failed': '→ a finally failed over',
  'cleanup-failed': '+ then a cancelled branch’s cleanup failed:',
};

/** "exit 2", "signal SIGSEGV", or '' from an attempt's error envelope. */
export function processEnd(error: ErrorEnvelope | null): string {
  const context = error?.context ?? {};
  if (typeof context.exitCode === 'number') return `exit ${context.exitCode}`;
  if (typeof context.signal === 'string' && context.signal !== '') return `signal ${context.signal}`;
  return '';
}

/** How the link's attempt's process ended, read from that attempt's own error when it is this link's. */
export function endOf(link: FailureLink, facts: AttemptFacts | undefined): string {
  const error = link.taskId !== null && link.attempt !== null ? (facts?.attemptError(link.taskId, link.attempt) ?? null) : null;
  return error?.code === link.code ? processEnd(error) : '';
}

function whatOf(link: FailureLink, end: string): string {
  if (link.how === 'retry-limit') return link.attempt !== null ? `retry limit after ${link.attempt} attempt${link.attempt === 1 ? '' : 's'}` : 'retry limit';
  if (link.code === 'USER_THROWN') return `${link.code} “${link.message}”`;
  return end ? `${link.code} ${end}` : link.code;
}

export function whereOf(link: Pick<FailureLink, 'taskId' | 'attempt' | 'how'>, facts: AttemptFacts | undefined): ChainPart['where'] {
  // A retry limit names the same attempt as the error it gave up after: said once, on that one.
  if (link.taskId === null || link.how === 'retry-limit') return null;
  const name = facts?.taskName(link.taskId) ?? `task ${link.taskId}`;
  const template = facts?.taskTemplate?.(link.taskId) ?? null;
  return {
    taskId: link.taskId,
    attempt: link.attempt,
    label: link.attempt !== null ? `${name} attempt ${link.attempt}` : name,
    ...(template !== null ? { template } : {}),
  };
}

/** The chain, head first, as the parts of a short list. */
export function chainParts(ending: EndingError, facts?: AttemptFacts): ChainPart[] {
  return ending.chain.map((link, i) => {
    const before = i > 0 ? ending.chain[i - 1] : undefined;
    const end = link.how === 'retry-limit' ? '' : endOf(link, facts);
    return {
      lead: before ? LEADS[before.how ?? 'retry-limit'] : '',
      what: whatOf(link, end),
      code: link.code,
      end,
      where: whereOf(link, facts),
      rethrown: link.rethrown === true,
    };
  });
}

/** One part as plain text: "→ RUNTIME_CRASHED exit 2 in Deploy attempt 4 (caught, rethrown)". */
function partText(part: ChainPart): string {
  return [part.lead, part.what, part.where ? `in ${part.where.label}` : '', part.rethrown ? '(caught, rethrown)' : ''].filter((s) => s !== '').join(' ');
}

/** The whole chain on one line; a chain-less ending (an old row) reads as its code. */
export function chainText(ending: EndingError, facts?: AttemptFacts): string {
  const parts = chainParts(ending, facts);
  return parts.length > 0 ? parts.map(partText).join(' ') : ending.code;
}

export type EndingKind = 'failed' | 'cancelled' | 'interrupted';

/** Which story a run's end tells; null for a run that has not ended badly (live, or completed). */
export function endingKind(run: { status: RunStatus; endingError: EndingError | null }): EndingKind | null {
  if (run.endingError === null) return null;
  if (run.status === 'failed' || run.status === 'cancelled' || run.status === 'interrupted') return run.status;
  return null;
}

/** What a cancelled or interrupted run says in place of a failure's chain. */
export function endingSentence(kind: EndingKind, ending: EndingError): string {
  if (kind === 'cancelled') {
    const during = ending.step !== null ? ` during step ${ending.step}` : ' between steps';
    return `Cancelled${during}: ${ending.message || 'no reason given'}`;
  }
  if (kind === 'interrupted') return `Interrupted: its host stopped before the run ended (${ending.message}). Resume continues from the last checkpoint.`;
  return `${ending.code}: ${ending.message}`;
}

/**
 * The ending error of a failed run in one line (a notification, a tooltip): the chain, then the
 * root cause's message (the most specific one: a retry limit's own repeats it).
 */
export function failureLine(ending: EndingError, facts?: AttemptFacts): string {
  const message = ending.chain.at(-1)?.message ?? ending.message;
  return `${chainText(ending, facts)}: ${message}`;
}
