import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { FailureLink } from '../../base/events.js';

/**
 * A failure as the engine carries it (rule 16): a chain of links, head first, each an
 * error with the `errorOccurred` that journaled it. The ending error of a run is the head of the
 * chain it fails with; the chain's envelope nests every link in the one before it (`cause`), and
 * `runFailed.chain` lists the same links flat with their seqs, so the store can tell the
 * occurrences that ended the run (unhandled) from every other one (handled).
 */

export type LinkHow = FailureLink['how'];

/** Where an error's `errorOccurred` is in the run's journal: set when it is journaled, null until then (or if it never is). */
export class Occurrence {
  seq: number | null = null;
}

export interface ChainLink {
  /** The link's own error. Its cause is the next link, whatever the error object says. */
  readonly error: HivewatchError;
  readonly occurrence: Occurrence;
  /** How this link led to the next one; null on the root. */
  readonly how: LinkHow;
  /** A bare `throw` carried this link on. */
  readonly rethrown: boolean;
}

function ownEnvelope(error: HivewatchError): ErrorEnvelope {
  const { cause: _nested, ...own } = error.toEnvelope();
  return own;
}

export class FailureChain {
  private built: HivewatchError | null = null;

  private constructor(readonly links: readonly ChainLink[]) {
    if (links.length === 0) throw new TypeError('a failure chain has at least one link');
  }

  /** A root cause: one link. */
  static of(error: HivewatchError, occurrence: Occurrence = new Occurrence()): FailureChain {
    return new FailureChain([{ error, occurrence, how: null, rethrown: false }]);
  }

  /**
   * A chain read back from an envelope (a replayed task's failure on resume): its causes become
   * links. Their occurrences belong to another run's journal, so they have no seq here.
   */
  static fromEnvelope(envelope: ErrorEnvelope): FailureChain {
    const links: ChainLink[] = [];
    for (let e: ErrorEnvelope | undefined = envelope; e !== undefined; e = e.cause) {
      const next = e.cause;
      links.push({
        error: HivewatchError.fromEnvelope({ ...e, cause: undefined }),
        occurrence: new Occurrence(),
        how: next === undefined ? null : howFromCodes(e.code),
        rethrown: false,
      });
    }
    return new FailureChain(links);
  }

  get head(): ChainLink {
    return this.links[0] as ChainLink;
  }

  get root(): ChainLink {
    return this.links[this.links.length - 1] as ChainLink;
  }

  /** The head's error with the rest of the chain nested as its cause: what a catch binds, what runFailed journals. */
  get error(): HivewatchError {
    this.built ??= HivewatchError.fromEnvelope(this.envelope());
    return this.built;
  }

  envelope(): ErrorEnvelope {
    let nested: ErrorEnvelope | undefined;
    for (let i = this.links.length - 1; i >= 0; i--) {
      const own = ownEnvelope((this.links[i] as ChainLink).error);
      nested = nested === undefined ? own : { ...own, cause: nested };
    }
    return nested as ErrorEnvelope;
  }

  /**
   * This chain, led to by `cause`: its root now points at cause's head (`how`), cause's links
   * follow. When its root already is cause's head (a `throw "msg"` in a catch whose finally was
   * pending the same caught error, rethrown), the two meet there: one occurrence is one link.
   */
  causedBy(how: Exclude<LinkHow, null>, cause: FailureChain): FailureChain {
    const root = this.root;
    if (root.occurrence === cause.head.occurrence) {
      const met = { ...cause.head, rethrown: root.rethrown || cause.head.rethrown };
      return new FailureChain([...this.links.slice(0, -1), met, ...cause.links.slice(1)]);
    }
    const own = this.links.map((link, i) => (i === this.links.length - 1 ? { ...link, how } : link));
    return new FailureChain([...own, ...cause.links]);
  }

  /** The same failure carried on by a bare `throw`: nothing new is journaled, the head is marked. */
  rethrown(): FailureChain {
    return new FailureChain([{ ...this.head, rethrown: true }, ...this.links.slice(1)]);
  }

  /** The links as `runFailed.chain` journals them, head first. */
  flat(): FailureLink[] {
    return this.links.map((link) => {
      const { error } = link;
      return {
        seq: link.occurrence.seq,
        code: error.code,
        category: error.category,
        origin: error.origin,
        message: error.message,
        step: error.correlation.step,
        taskId: error.correlation.task,
        attempt: error.correlation.attempt,
        how: link.how,
        ...(link.rethrown ? { rethrown: true } : {}),
      };
    });
  }
}

/** For chains read from an envelope: the only link a task's own failure makes is the retry limit's. */
function howFromCodes(code: string): LinkHow {
  if (code === 'POLICY_RETRY_LIMIT_EXCEEDED') return 'retry-limit';
  if (code === 'USER_THROWN') return 'thrown-in-catch';
  return 'finally-failed';
}
