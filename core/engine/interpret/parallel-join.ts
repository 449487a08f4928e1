import { CancelledError } from '../../base/errors/hivewatch-error.js';
import type { ParallelStmt } from '../../flow/syntax/ast.js';
import { BranchCancelled, errorView, FlowFailure } from './thread-failures.js';

/**
 * A parallel's join, as a pure function of how its branches ended, so the parallel's value or the
 * failure it raises never depends on the order its branches finished in: failures are ranked by
 * program order (rule 6), the earliest that fails the parallel escapes it, with the failures of
 * its cancelled branches' `finally` blocks after it (F5).
 */

/** Whether a failure leaving a branch fails the whole parallel: always in fail-fast, and a system error anywhere. */
export function failsParallel(statement: ParallelStmt, failure: FlowFailure): boolean {
  return statement.onFail === 'fail-fast' || failure.error.escalates;
}

/** The value of a parallel whose branches (named `names`, in order) ended as `settled`; throws the failure or cancellation it raises. */
export function joinParallel(statement: ParallelStmt, names: readonly string[], settled: readonly PromiseSettledResult<unknown>[]): unknown {
  const failures: { name: string; failure: FlowFailure }[] = [];
  let operatorCancel: CancelledError | null = null;
  let branchCancelled = false;
  const cleanups: FlowFailure[] = [];
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    const name = names[index] as string;
    const reason: unknown = outcome.reason;
    if (reason instanceof FlowFailure) failures.push({ name, failure: reason });
    else if (reason instanceof BranchCancelled) {
      branchCancelled = true;
      cleanups.push(...reason.cleanups);
    } else if (reason instanceof CancelledError) operatorCancel = reason;
    else throw reason;
  });
  failures.sort((a, b) => a.failure.rank - b.failure.rank);
  const escaping = failures.find((f) => failsParallel(statement, f.failure));
  if (escaping) throw withCleanups(escaping.failure, cleanups);
  // Cancelled branches carry their cleanups' failures on up, to the parallel that died.
  const cancelled = operatorCancel ?? (branchCancelled ? new BranchCancelled(cleanups) : null);
  const successes = settled.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [{ branch: names[index] as string, output: outcome.value }] : []));
  if (statement.onFail === 'fail-fast') {
    if (cancelled) throw cancelled;
    return Object.fromEntries(successes.map((s) => [s.branch, s.output]));
  }
  // A run cancellation stops continue/ignore parallels too; branch failures do not.
  if (cancelled && successes.length + failures.length < names.length) throw cancelled;
  if (statement.onFail === 'ignore') return successes.map((s) => s.output);
  return {
    successes,
    failures: failures.map((f) => ({ branch: f.name, error: errorView(f.failure.error) })),
  };
}

/**
 * The failure a dead parallel raises (F5): the one that killed it, with the failures of its
 * cancelled branches' `finally` blocks after it in program order (`cleanup-failed`).
 */
function withCleanups(killing: FlowFailure, cleanups: readonly FlowFailure[]): FlowFailure {
  if (cleanups.length === 0) return killing;
  const ordered = [...cleanups].sort((a, b) => a.rank - b.rank);
  const chain = ordered.reduce((acc, cleanup) => acc.causedBy('cleanup-failed', cleanup.chain), killing.chain);
  return new FlowFailure(chain, killing.rank);
}
