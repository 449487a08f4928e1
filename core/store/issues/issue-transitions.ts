import type { IssueChangeKind } from './issues.js';

/**
 * The in-process hook on error issues: every status change this process
 * journaled, after it committed. Alert rules (new issue, regression, escalation, the resolve
 * follow-up) subscribe here.
 *
 * What one process sees: the changes it journaled itself, each once. A system transition (new,
 * regressed, escalating, an ignore that lapsed) is journaled by exactly one host of a database
 * (its dedupe key, core/store/issues/issues.ts), so across the hosts of one shared database it is
 * emitted exactly once, by the host that journaled it; an operator's change is emitted by the
 * process it was made in (the window's service, or `hivewatch issues` for the CLI).
 */
export interface IssueTransition {
  fingerprint: string;
  /** "CODE · normalised message": what the operator reads (core/service/issues/book.ts issueTitle). */
  title: string;
  kind: IssueChangeKind;
  /** Wall ms the change was journaled at ('new': the group's first occurrence). */
  at: number;
  /** 'cli' or 'window' for an operator's change; `host:<instance>` for a system transition. */
  by: string;
}

export type IssueTransitionListener = (transition: IssueTransition) => void;

/** A plain fan-out: a listener that throws is reported and does not stop the others. */
export class IssueTransitions {
  private readonly listeners = new Set<IssueTransitionListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  /** Returns unsubscribe. */
  subscribe(listener: IssueTransitionListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(transition: IssueTransition): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(transition);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
