import type { Occurrence } from './occurrences.js';
import type { AlertCondition } from './rules.js';
import type { IssueTransition } from '../../store/issues/issue-transitions.js';

/** An error issue's change of state, told by the issues engine's hook (service.ts wires the two). */
export type { IssueTransition };

const CONDITION_OF: Partial<Record<IssueTransition['kind'], AlertCondition>> = {
  new: 'new-issue',
  regressed: 'regression',
  escalating: 'escalating',
};

const WORDS: Partial<Record<IssueTransition['kind'], string>> = {
  new: 'New issue',
  regressed: 'Regression',
  escalating: 'Escalating issue',
};

/**
 * The occurrence an issue transition makes, or null for one no condition alerts on (ignored,
 * reopened; resolved makes follow-ups instead). Each transition is its own occurrence (kind and
 * time): a second regression months later alerts again, the same one seen by two hosts once.
 */
export function issueOccurrence(transition: IssueTransition): Occurrence | null {
  const condition = CONDITION_OF[transition.kind];
  if (!condition) return null;
  const title = `${WORDS[transition.kind]}: ${transition.title}`;
  return {
    condition,
    subject: transition.fingerprint,
    occurrence: `${transition.kind}@${transition.at}`,
    throttleKey: `issue:${transition.fingerprint}`,
    title,
    flow: null,
    flowName: null,
    code: codeOfTitle(transition.title),
    category: null,
    facts: { condition, text: title, fingerprint: transition.fingerprint, at: transition.at },
  };
}

/** Issue titles lead with the error code ("RUNTIME_RATE_LIMIT · runtime fake was …"): a rule's --code matches it. */
function codeOfTitle(title: string): string | null {
  const match = /^([A-Z][A-Z0-9_]+)\s·/.exec(title);
  return match ? match[1]! : null;
}
