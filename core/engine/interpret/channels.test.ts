import { describe, expect, it } from 'vitest';
import { commitWrites, concurrentThreads, emptyChannelState, replaceReducer, type ChannelDef, type ForkPoint, type StagedWrite } from './channels.js';

const def = (key: string, overrides: Partial<ChannelDef> = {}): ChannelDef => ({
  key,
  name: key.split('@')[0] as string,
  scope: key.includes('@') ? 'branch' : 'global',
  policy: 'single',
  reducer: replaceReducer,
  ...overrides,
});

const channels = (...defs: ChannelDef[]): Map<string, ChannelDef> => new Map(defs.map((d) => [d.key, d]));

/** Two executions of parallel statements, for the threads of the writes below. */
const P = {};
const Q = {};
const branch = (instance: object, index: number): ForkPoint => ({ instance, branch: index });

/** A write by a task (ordinal) or an assignment (line) of a thread inside `forks`. */
const write = (key: string, value: unknown, at: { ordinal?: number; line: number; forks?: ForkPoint[] }): StagedWrite => ({
  key,
  value,
  ordinal: at.ordinal ?? null,
  thread: (at.forks ?? []).map((f) => `${f.instance === P ? 'P' : 'Q'}b${f.branch}`).join('/'),
  forks: at.forks ?? [],
  pos: { line: at.line, column: 1 },
});

describe('commitWrites (pure commit)', () => {
  it('applies writes in the order given (program order) through each reducer', () => {
    const append = def('log', { reducer: (current, update) => [...((current as unknown[]) ?? []), update] });
    const writes = [write('log', 'first', { ordinal: 3, line: 9 }), write('x', 1, { line: 2 }), write('log', 'second', { line: 10 })];
    const first = commitWrites(emptyChannelState(), writes, channels(append, def('x')));
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.applied.map((w) => w.value)).toEqual(['first', 1, 'second']);
    const second = commitWrites(first.state, [write('log', 'third', { ordinal: 0, line: 1 })], channels(append, def('x')));
    expect(second.ok && Object.fromEntries(second.state.values)).toEqual({ log: ['first', 'second', 'third'], x: 1 });
  });

  it('one thread writing a channel twice is two sequential writes: the last wins (rule 7b)', () => {
    const result = commitWrites(emptyChannelState(), [write('x', 'a', { line: 1 }), write('x', 'b', { line: 2 })], channels(def('x')));
    expect(result.ok && result.state.values.get('x')).toBe('b');
  });

  it('a branch and the thread it forked from write in sequence; two sibling branches collide', () => {
    const parentThenBranch = [write('x', 'seed', { line: 1 }), write('x', 'branch', { ordinal: 0, line: 3, forks: [branch(P, 0)] })];
    expect(commitWrites(emptyChannelState(), parentThenBranch, channels(def('x'))).ok).toBe(true);
    // Branches of two parallels that ran one after the other are in sequence too.
    const inTurn = [write('x', 'first', { ordinal: 0, line: 3, forks: [branch(P, 0)] }), write('x', 'second', { line: 9, forks: [branch(Q, 0)] })];
    expect(commitWrites(emptyChannelState(), inTurn, channels(def('x'))).ok).toBe(true);
    const siblings = [write('x', 'left', { ordinal: 0, line: 3, forks: [branch(P, 0)] }), write('x', 'right', { line: 4, forks: [branch(P, 1)] })];
    const result = commitWrites(emptyChannelState(), siblings, channels(def('x')));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('POLICY_COMMIT_REJECTED');
    expect(result.error.message).toBe(
      'channel "x" written by two parallel branches in one step (session #0 and the assignment at 4:1); its update policy allows a single writer',
    );
  });

  it('unknown channel beats update-policy violation, whatever the order of the writes', () => {
    const writes = [
      write('x', 1, { ordinal: 0, line: 1, forks: [branch(P, 0)] }),
      write('x', 2, { ordinal: 1, line: 2, forks: [branch(P, 1)] }),
      write('ghost', 3, { ordinal: 2, line: 3 }),
    ];
    const result = commitWrites(emptyChannelState(), writes, channels(def('x')));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(result.ordinal).toBe(2);
  });

  it('branch-local keys of one name are distinct channels: one write per task each', () => {
    const writes = [
      write('note@b0', 'left', { ordinal: 0, line: 1, forks: [branch(P, 0)] }),
      write('note@b1', 'right', { ordinal: 1, line: 2, forks: [branch(P, 1)] }),
    ];
    expect(commitWrites(emptyChannelState(), writes, channels(def('note@b0'), def('note@b1'))).ok).toBe(true);
  });

  it('const channels accept one write per run', () => {
    const c = channels(def('k', { policy: 'const' }));
    const first = commitWrites(emptyChannelState(), [write('k', 1, { line: 1 })], c);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const second = commitWrites(first.state, [write('k', 2, { line: 1 })], c);
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.error.message).toBe('const channel "k" is already set');
  });

  it('a reducer that throws rejects the whole commit and leaves the state untouched', () => {
    const state = emptyChannelState();
    const throwing = def('bad', {
      reducer: () => {
        throw new Error('nope');
      },
    });
    const result = commitWrites(state, [write('x', 1, { line: 1 }), write('bad', 2, { line: 2 })], channels(def('x'), throwing));
    expect(result.ok).toBe(false);
    expect(state.values.size).toBe(0);
  });
});

describe('concurrentThreads', () => {
  it('is true only for different branches of one execution of a parallel', () => {
    expect(concurrentThreads([], [branch(P, 0)])).toBe(false);
    expect(concurrentThreads([branch(P, 0)], [branch(P, 0), branch(Q, 1)])).toBe(false);
    expect(concurrentThreads([branch(P, 0)], [branch(P, 1)])).toBe(true);
    expect(concurrentThreads([branch(P, 0), branch(Q, 0)], [branch(P, 1), branch(Q, 0)])).toBe(true);
    // Two parallels one thread ran in turn: sequential, even at the same branch index.
    expect(concurrentThreads([branch(P, 1)], [branch(Q, 0)])).toBe(false);
  });
});
