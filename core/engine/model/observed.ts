import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import type { ModelLink } from './model-failures.js';

/**
 * What a journal says about the failure model (rules (docs/rules.md) 16–17), in the reference model's
 * terms: the ending error's chain, every error occurrence that counts with its disposition as the
 * store settles it from `runFailed.chain` (unhandled iff its seq is a link's), and the failures.
 */

export interface ObservedFailures {
  chain: ModelLink[] | null;
  occurrences: string[];
  failures: number;
}

/** Where an error happened, in the model's words: `task <taskId>#<attempt>`, `throw <line>:<col>`, or `run`. */
function whereOf(error: ErrorEnvelope): string {
  const { task, attempt } = error.correlation;
  if (task !== null) return `task ${task}#${String(attempt)}`;
  if (error.code === 'USER_THROWN') return `throw ${String(error.context.line)}:${String(error.context.column)}`;
  return 'run';
}

/** The envelope's causes, head first. */
function nestedLinks(envelope: ErrorEnvelope): ErrorEnvelope[] {
  const out: ErrorEnvelope[] = [];
  for (let e: ErrorEnvelope | undefined = envelope; e !== undefined; e = e.cause) out.push(e);
  return out;
}

export function observedFailures(events: readonly HivewatchEvent[]): ObservedFailures {
  // A task a sibling cancelled is not a failure of its own; what it journaled before is timing (F7).
  const cancelled = new Set(events.flatMap((e) => (e.type === 'taskFailed' && e.cancelled ? [e.taskId] : [])));
  const failed = events.filter((e): e is EventOf<'runFailed'> => e.type === 'runFailed');
  const ending = failed[0];
  const unhandled = new Set((ending?.chain ?? []).map((link) => link.seq));
  const occurrences = events
    .filter((e): e is EventOf<'errorOccurred'> => e.type === 'errorOccurred' && (e.taskId === null || !cancelled.has(e.taskId)))
    .map((e) => `${whereOf(e.error)} ${e.error.code} ${unhandled.has(e.seq) ? 'unhandled' : 'handled'}`)
    .sort();
  const nested = ending ? nestedLinks(ending.error) : [];
  const chain =
    ending?.chain?.map(
      (link, i): ModelLink => ({
        code: link.code,
        where: nested[i] ? whereOf(nested[i]) : '?',
        how: link.how,
        ...(link.rethrown ? { rethrown: true } : {}),
      }),
    ) ?? null;
  return { chain, occurrences, failures: failed.length };
}

/**
 * How a journal's ending error breaks the contract (empty when it keeps it): `runFailed.chain`
 * is present, its head is `error`, it lists the envelope's nested causes in order, and every link
 * names by seq an `errorOccurred` of this run with its code, task and attempt.
 */
export function chainProblems(events: readonly HivewatchEvent[]): string[] {
  const problems: string[] = [];
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  for (const failed of events.filter((e): e is EventOf<'runFailed'> => e.type === 'runFailed')) {
    const chain = failed.chain ?? [];
    if (chain.length === 0) problems.push('runFailed has no chain');
    const nested = nestedLinks(failed.error);
    if (nested.length !== chain.length) problems.push(`the envelope nests ${nested.length} links, the chain lists ${chain.length}`);
    chain.forEach((link, i) => {
      const envelope = nested[i];
      if (envelope && (envelope.code !== link.code || envelope.message !== link.message))
        problems.push(`link ${i} is ${link.code}, the envelope says ${envelope.code}`);
      if (link.how === null && i !== chain.length - 1) problems.push(`link ${i} has no how but is not the root`);
      const occurred = link.seq === null ? undefined : bySeq.get(link.seq);
      if (occurred?.type !== 'errorOccurred') {
        problems.push(`link ${i} (${link.code}) names seq ${String(link.seq)}, which is no errorOccurred`);
        return;
      }
      const { code, correlation } = occurred.error;
      if (code !== link.code || correlation.task !== link.taskId || correlation.attempt !== link.attempt) {
        problems.push(
          `link ${i} (${link.code} ${String(link.taskId)}#${String(link.attempt)}) names seq ${link.seq}, which is ${code} ${String(correlation.task)}#${String(correlation.attempt)}`,
        );
      }
    });
  }
  return problems;
}
