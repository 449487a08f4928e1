import type { Position, Template } from '../../flow/syntax/ast.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import { scriptedResult, type ScriptedOutcome } from './racing-runtime.js';

/**
 * The reference model's failure model (rules (docs/rules.md) 16–18, docs/semantics.md F1–F7), written
 * from the documents: failures as chains of links, error occurrences, the handlers that stop a
 * failure on its way up, and one task through its retry policy.
 */

export type LinkHow = 'retry-limit' | 'thrown-in-catch' | 'finally-failed' | 'cleanup-failed' | null;

/** One `errorOccurred` the run journals. `where`: `task <step>:<ordinal>#<attempt>`, `throw <line>:<col>`, or `run`. */
export interface Occ {
  code: string;
  where: string;
}

export interface ModelLink {
  code: string;
  where: string;
  how: LinkHow;
  rethrown?: boolean;
}

interface Link extends ModelLink {
  occ: Occ;
}

export interface Head {
  code: string;
  category: string;
  origin: string;
  recoverable: boolean;
  message: string;
}

/** A failure travelling up: its chain (head first), its place in program order, and where the run says it happened. */
export class Failure {
  constructor(
    readonly head: Head,
    readonly links: readonly Link[],
    /** Program order of where it was raised: decides which of several failures wins. */
    readonly rank: number,
    /** `task <ordinal>` for a session's failure, `line:col` of a `throw`. */
    readonly at: string | null,
  ) {}

  static root(head: Head, occ: Occ, rank: number, at: string | null): Failure {
    return new Failure(head, [{ code: head.code, where: occ.where, how: null, occ }], rank, at);
  }

  get escalates(): boolean {
    return this.head.category === 'system';
  }

  /**
   * This failure led to by `cause`: its root points at cause's head, cause's links follow; where
   * its root is cause's head (one occurrence reached two ways), they meet in one link.
   */
  causedBy(how: Exclude<LinkHow, null>, cause: Failure): Failure {
    const root = this.links[this.links.length - 1] as Link;
    const [causeHead, ...causeRest] = cause.links as [Link, ...Link[]];
    if (root.occ === causeHead.occ) {
      const met: Link = { ...causeHead, ...(root.rethrown || causeHead.rethrown ? { rethrown: true } : {}) };
      return new Failure(this.head, [...this.links.slice(0, -1), met, ...causeRest], this.rank, this.at);
    }
    const own = this.links.map((l, i) => (i === this.links.length - 1 ? { ...l, how } : l));
    return new Failure(this.head, [...own, ...cause.links], this.rank, this.at);
  }

  rethrown(): Failure {
    const [head, ...rest] = this.links as [Link, ...Link[]];
    return new Failure(this.head, [{ ...head, rethrown: true }, ...rest], this.rank, this.at);
  }

  chain(): ModelLink[] {
    return this.links.map(({ occ: _occ, ...link }) => link);
  }

  occurrences(): readonly Occ[] {
    return this.links.map((l) => l.occ);
  }
}

/** What `catch err:` binds. */
export const view = (f: Head): Record<string, unknown> => ({
  message: f.message,
  code: f.code,
  category: f.category,
  origin: f.origin,
  recoverable: f.recoverable,
});

/** A failure leaving a branch fails the parallel: always in fail-fast, and a system error anywhere. */
export const escapesParallel = (stmt: { onFail: string }, failure: Failure): boolean => stmt.onFail === 'fail-fast' || failure.escalates;

/** A branch stopped because a fail-fast parallel around it died (F5); `cleanups`: its finally blocks' failures. */
export class Cancel {
  constructor(readonly cleanups: readonly Failure[] = []) {}
  with(more: readonly Failure[]): Cancel {
    return new Cancel([...this.cleanups, ...more]);
  }
}

/** The failure a dead parallel raises: the one that killed it, then its cancelled branches' cleanup failures in program order. */
export function withCleanups(killing: Failure, cleanups: readonly Failure[]): Failure {
  return [...cleanups].sort((a, b) => a.rank - b.rank).reduce((acc, c) => acc.causedBy('cleanup-failed', c), killing);
}

export interface Par {
  dead: boolean;
}
export type Frame =
  | { kind: 'try'; hasCatch: boolean; hasFinally: boolean }
  | { kind: 'par'; mode: string; par: Par; branch: number }
  /** The finally a cancelled branch runs (F5): a failure stops here, joining the killing failure. */
  | { kind: 'cleanup' }
  /** A finally running while a failure is pending: a failure leaving it is caused by that one. */
  | { kind: 'finally'; pending: Failure };

export const rankOf = (pos: Position): number => pos.line * 1_000_000 + pos.column;

/** Concurrent: different branches of one execution of a parallel. Anything else ran in sequence. */
export function concurrent(a: readonly Frame[], b: readonly Frame[]): boolean {
  const pa = a.filter((f) => f.kind === 'par');
  const pb = b.filter((f) => f.kind === 'par');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]] as [Extract<Frame, { kind: 'par' }>, Extract<Frame, { kind: 'par' }>];
    if (x.par !== y.par) return false;
    if (x.branch !== y.branch) return true;
  }
  return false;
}

/** Inside a dead parallel, counting only those inside the innermost cleanup (a cancelled branch's finally runs). */
export function inDead(frames: readonly Frame[]): boolean {
  const cleanup = frames.map((f) => f.kind).lastIndexOf('cleanup');
  return frames.some((f, i) => i > cleanup && f.kind === 'par' && f.par.dead);
}

/** Who stops a failure on its way up: the walk of rules (docs/rules.md) 13–14 and 14b, and F5's cleanup. */
export function reach(frames: readonly Frame[], escalates: boolean): { kind: 'caught' | 'deferred' | 'unhandled'; killed: Par[] } {
  const killed: Par[] = [];
  for (const frame of [...frames].reverse()) {
    if (frame.kind === 'cleanup') return { kind: 'deferred', killed };
    if (frame.kind === 'finally') continue;
    if (frame.kind === 'try') {
      if (frame.hasCatch && !escalates) return { kind: 'caught', killed };
      if (frame.hasFinally) return { kind: 'deferred', killed };
    } else if (frame.mode !== 'fail-fast' && !escalates) {
      return { kind: 'caught', killed };
    } else {
      killed.push(frame.par);
    }
  }
  return { kind: 'unhandled', killed };
}

/** A failure that ends the run from inside finally bodies: each pending failure, innermost first, becomes its cause. */
export function causedByPending(failure: Failure, frames: readonly Frame[]): Failure {
  return [...frames].reverse().reduce((acc, f) => (f.kind === 'finally' ? acc.causedBy('finally-failed', f.pending) : acc), failure);
}

/** F5: a thread cancelled because `par` died has a finally to run inside it. */
export function unwindsFinally(frames: readonly Frame[], par: Par): boolean {
  const at = frames.findIndex((f) => f.kind === 'par' && f.par === par);
  return at !== -1 && frames.slice(at + 1).some((f) => f.kind === 'try' && f.hasFinally);
}

export interface TaskRun {
  result: { output: string } | { failure: Failure };
  /** Every error the task journals when it counts: each failed attempt's, and the retry limit's. */
  occurrences: Occ[];
}

/** One task through its retry policy: rule 2 with the error deciding (no timing here). */
export function runTask(
  plan: FlowPlan,
  outcome: (ordinal: number, attempt: number, prompt: string) => ScriptedOutcome,
  where: { step: number; ordinal: number },
  renderPrompt: (t: Template) => string,
): TaskRun {
  const spec = plan.sessions[where.ordinal];
  if (!spec) throw new Error(`model: no session ${where.ordinal}`);
  const prompt = spec.prompt === null ? '' : renderPrompt(spec.prompt);
  const retries = spec.retry.retries;
  const at = `task ${where.ordinal}`;
  const rank = rankOf(spec.pos);
  const occurrences: Occ[] = [];
  for (let attempt = 1; ; attempt++) {
    const result = scriptedResult(outcome(where.ordinal, attempt, prompt));
    if (result.kind === 'succeeded') return { result: { output: result.output }, occurrences };
    if (result.kind !== 'failed') throw new Error('model: a scripted attempt cannot be cancelled');
    const e = result.error;
    const head: Head = { code: e.code, category: e.category, origin: e.origin, recoverable: e.recoverable, message: e.message };
    const occ: Occ = { code: e.code, where: `task ${where.step}:${where.ordinal}#${attempt}` };
    occurrences.push(occ);
    const own = Failure.root(head, occ, rank, at);
    if (!e.recoverable || (attempt > retries && retries === 0)) return { result: { failure: own }, occurrences };
    if (attempt > retries) {
      const limitOcc: Occ = { code: 'POLICY_RETRY_LIMIT_EXCEEDED', where: occ.where };
      occurrences.push(limitOcc);
      const limit: Head = {
        code: 'POLICY_RETRY_LIMIT_EXCEEDED',
        category: 'policy',
        origin: 'policy',
        recoverable: false,
        message: `gave up after ${attempt} attempts: ${e.message}`,
      };
      return { result: { failure: Failure.root(limit, limitOcc, rank, at).causedBy('retry-limit', own) }, occurrences };
    }
  }
}
