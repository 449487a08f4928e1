import { describe, expect, it } from 'vitest';
import { CancelledError, HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { OnFail, ParallelStmt } from '../../flow/syntax/ast.js';
import { FailureChain } from './failure-chain.js';
import { joinParallel } from './parallel-join.js';
import { BranchCancelled, FlowFailure } from './thread-failures.js';

const NAMES = ['a', 'b', 'c'];

function parallel(onFail: OnFail): ParallelStmt {
  const pos = { line: 1, column: 1 };
  const branches = NAMES.map((name) => ({ name, body: { kind: 'session', ordinal: 0, pos } }));
  return { kind: 'parallel', onFail, properties: [], branches, pos } as unknown as ParallelStmt;
}

const failure = (message: string, rank: number): FlowFailure =>
  new FlowFailure(FailureChain.of(new HivewatchError('RUNTIME_CRASHED', { message, origin: 'runtime:test' })), rank);
const ok = (value: unknown): PromiseSettledResult<unknown> => ({ status: 'fulfilled', value });
const no = (reason: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason });

/** What the join gives: its value, or what it throws. */
function outcome(statement: ParallelStmt, settled: readonly PromiseSettledResult<unknown>[]): unknown {
  try {
    return { value: joinParallel(statement, NAMES, settled) };
  } catch (thrown) {
    return { thrown };
  }
}

describe('a parallel join', () => {
  it('raises the failure earliest in program order, however the branches were listed', () => {
    const early = failure('early', 2);
    const late = failure('late', 9);
    const thrown = (settled: PromiseSettledResult<unknown>[]) => (outcome(parallel('fail-fast'), settled) as { thrown: unknown }).thrown;
    expect(thrown([no(late), ok('b'), no(early)])).toBe(early);
    expect(thrown([no(early), ok('b'), no(late)])).toBe(early);
  });

  it('keeps the failures of cancelled branches’ finally blocks after the killing one, in program order (F5)', () => {
    const killing = failure('killing', 1);
    const cleanups = [failure('cleanup late', 8), failure('cleanup early', 5)];
    const result = outcome(parallel('fail-fast'), [
      no(killing),
      no(new BranchCancelled([cleanups[0] as FlowFailure])),
      no(new BranchCancelled([cleanups[1] as FlowFailure])),
    ]);
    const raised = (result as { thrown: FlowFailure }).thrown;
    expect(raised.rank).toBe(1);
    expect(raised.chain.flat().map((link) => [link.message, link.how])).toEqual([
      ['killing', 'cleanup-failed'],
      ['cleanup early', 'cleanup-failed'],
      ['cleanup late', null],
    ]);
  });

  it('answers by its on-fail mode: fail-fast by name, ignore the successes, continue both with the failures ranked', () => {
    const settled = [ok('A'), no(failure('second', 7)), no(failure('first', 3))];
    expect(outcome(parallel('fail-fast'), [ok('A'), ok('B'), ok('C')])).toEqual({ value: { a: 'A', b: 'B', c: 'C' } });
    expect(outcome(parallel('ignore'), settled)).toEqual({ value: ['A'] });
    const value = (outcome(parallel('continue'), settled) as { value: { successes: unknown; failures: { branch: string }[] } }).value;
    expect(value.successes).toEqual([{ branch: 'a', output: 'A' }]);
    expect(value.failures.map((f) => f.branch)).toEqual(['c', 'b']);
  });

  it("stops a continue or ignore parallel on an operator's cancel; a branch's failure alone does not stop it", () => {
    const cancel = new CancelledError('cancelled by operator');
    expect(outcome(parallel('continue'), [ok('A'), no(cancel), ok('C')])).toEqual({ thrown: cancel });
    expect((outcome(parallel('ignore'), [ok('A'), no(failure('x', 1)), ok('C')]) as { value: unknown }).value).toEqual(['A', 'C']);
  });
});
