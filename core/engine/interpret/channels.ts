import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Position } from '../../flow/syntax/ast.js';

/**
 * Channels are the run's variables. Writes are staged in program order while a step runs and
 * while the threads advance after it, and applied here, at the step's commit, all or nothing.
 *
 * A thread (one parallel branch, or the main program) is sequential: its writes apply one after
 * the other in the order it made them, whatever step they fall in (rule 7b). Two writes to one
 * channel conflict only when they come from concurrent threads — sibling branches, or threads
 * under them — which the `single` update policy forbids within one step (rule 7).
 *
 * Validation order is fixed so the error a bad step raises does not depend on timing: unknown
 * channel (rule 7) beats update-policy violation beats reducers, and within each class the write
 * earliest in the program wins.
 */

export type Reducer = (current: unknown, update: unknown) => unknown;

/** `single`: one writer per step; `const`: at most one write per run. */
export type UpdatePolicy = 'single' | 'const';

export interface ChannelDef {
  /** Globals are their name; branch-locals are `name@<branch path>`, one per branch. */
  key: string;
  name: string;
  scope: 'global' | 'branch';
  policy: UpdatePolicy;
  reducer: Reducer;
}

/** One parallel a thread runs inside: which execution of the statement, and which branch. */
export interface ForkPoint {
  /** One object per execution of the parallel statement. */
  instance: object;
  branch: number;
}

export interface StagedWrite {
  key: string;
  value: unknown;
  /** The writing task's ordinal; null for an assignment the interpreter made. */
  ordinal: number | null;
  /** The writing thread's branch path ('' for the main program), for messages. */
  thread: string;
  /** The parallels the writing thread runs inside, outermost first. */
  forks: readonly ForkPoint[];
  /** Where in the program the write is made (the session or the assignment). */
  pos: Position | null;
}

export interface ChannelState {
  values: Map<string, unknown>;
  /** Keys of const channels already written. */
  written: Set<string>;
}

export const replaceReducer: Reducer = (_current, update) => update;

export function emptyChannelState(): ChannelState {
  return { values: new Map(), written: new Set() };
}

export type CommitResult = { ok: true; state: ChannelState; applied: StagedWrite[] } | { ok: false; error: HivewatchError; ordinal: number | null };

/**
 * True when two threads may run at the same time: they take different branches of one execution
 * of a parallel. Threads that part ways anywhere else ran one after the other — a branch and the
 * thread that forked it, or branches of two parallels the same thread ran in turn.
 */
export function concurrentThreads(a: readonly ForkPoint[], b: readonly ForkPoint[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as ForkPoint;
    const y = b[i] as ForkPoint;
    if (x.instance !== y.instance) return false;
    if (x.branch !== y.branch) return true;
  }
  return false;
}

/** Program order of a write, for choosing which error a bad commit reports. */
function rankOf(write: StagedWrite): number {
  return write.pos === null ? Number.MAX_SAFE_INTEGER : write.pos.line * 1_000_000 + write.pos.column;
}

function describeWriter(write: StagedWrite): string {
  if (write.ordinal !== null) return `session #${write.ordinal}`;
  return write.pos === null ? 'an assignment' : `the assignment at ${write.pos.line}:${write.pos.column}`;
}

function writerContext(write: StagedWrite): Record<string, unknown> {
  return { ordinal: write.ordinal, line: write.pos?.line ?? null, column: write.pos?.column ?? null, thread: write.thread };
}

/** Pure: the state after applying one step's writes (in the order given), or the one error that rejects them all. */
export function commitWrites(state: ChannelState, writes: readonly StagedWrite[], channels: ReadonlyMap<string, ChannelDef>): CommitResult {
  const byRank = [...writes].sort((a, b) => rankOf(a) - rankOf(b));

  const unknown = byRank.find((w) => !channels.has(w.key));
  if (unknown) {
    return {
      ok: false,
      ordinal: unknown.ordinal,
      error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
        message: `write to unknown channel "${unknown.key}"`,
        context: { channel: unknown.key, ordinal: unknown.ordinal, rule: 'unknown-channel' },
      }),
    };
  }

  const earlier = new Map<string, StagedWrite[]>();
  for (const write of byRank) {
    const def = channels.get(write.key) as ChannelDef;
    const before = earlier.get(write.key) ?? [];
    const rival = before.find((other) => concurrentThreads(other.forks, write.forks));
    if (rival) {
      return {
        ok: false,
        ordinal: write.ordinal,
        error: new HivewatchError('POLICY_COMMIT_REJECTED', {
          message: `channel "${def.name}" written by two parallel branches in one step (${describeWriter(rival)} and ${describeWriter(write)}); its update policy allows a single writer`,
          origin: 'policy',
          context: { channel: def.key, writers: [writerContext(rival), writerContext(write)], rule: 'update-policy-single' },
        }),
      };
    }
    if (def.policy === 'const' && (state.written.has(write.key) || before.length > 0)) {
      return {
        ok: false,
        ordinal: write.ordinal,
        error: new HivewatchError('POLICY_COMMIT_REJECTED', {
          message: `const channel "${def.name}" is already set`,
          origin: 'policy',
          context: { channel: def.key, rule: 'update-policy-const' },
        }),
      };
    }
    earlier.set(write.key, [...before, write]);
  }

  const values = new Map(state.values);
  const written = new Set(state.written);
  for (const write of writes) {
    const def = channels.get(write.key) as ChannelDef;
    try {
      values.set(write.key, def.reducer(values.get(write.key), write.value));
    } catch (cause) {
      return {
        ok: false,
        ordinal: write.ordinal,
        error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
          message: `reducer of channel "${def.name}" threw: ${cause instanceof Error ? cause.message : String(cause)}`,
          context: { channel: def.key, rule: 'reducer-threw' },
          cause,
        }),
      };
    }
    written.add(write.key);
  }
  return { ok: true, state: { values, written }, applied: [...writes] };
}

/** The committed values as a plain object, for checkpoints. */
export function snapshotChannels(state: ChannelState): Record<string, unknown> {
  return Object.fromEntries([...state.values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
