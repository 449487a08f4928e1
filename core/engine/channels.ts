import { HivewatchError } from '../errors/hivewatch-error.js';

/**
 * Channels are the run's variables. Writes are staged while a step runs and applied here, at
 * commit, all or nothing. Validation order is fixed so the error a bad step raises does not
 * depend on timing: unknown channel (rule 7) beats update-policy violation beats reducers, and
 * within each class the smallest ordinal wins.
 */

export type Reducer = (current: unknown, update: unknown) => unknown;

/** `single`: at most one write per step; `const`: at most one write per run. */
export type UpdatePolicy = 'single' | 'const';

export interface ChannelDef {
  /** Globals are their name; branch-locals are `name@<branch path>`, one per branch. */
  key: string;
  name: string;
  scope: 'global' | 'branch';
  policy: UpdatePolicy;
  reducer: Reducer;
}

export interface StagedWrite {
  key: string;
  value: unknown;
  /** The writing task's ordinal; null for a write by the interpreter (a parallel's result). */
  ordinal: number | null;
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

export type CommitResult =
  | { ok: true; state: ChannelState; applied: StagedWrite[] }
  | { ok: false; error: HivewatchError; ordinal: number | null };

const ordinalKey = (w: StagedWrite): number => (w.ordinal === null ? Number.MAX_SAFE_INTEGER : w.ordinal);

export function sortWrites(writes: readonly StagedWrite[]): StagedWrite[] {
  // Stable: interpreter writes (null ordinal) keep their staging order after task writes.
  return [...writes].sort((a, b) => ordinalKey(a) - ordinalKey(b));
}

/** Pure: the state after applying one step's writes, or the one error that rejects them all. */
export function commitWrites(
  state: ChannelState,
  writes: readonly StagedWrite[],
  channels: ReadonlyMap<string, ChannelDef>,
): CommitResult {
  const ordered = sortWrites(writes);

  const unknown = ordered.find((w) => !channels.has(w.key));
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

  const seen = new Map<string, StagedWrite>();
  for (const write of ordered) {
    const def = channels.get(write.key) as ChannelDef;
    const previous = seen.get(write.key);
    if (previous) {
      return {
        ok: false,
        ordinal: write.ordinal,
        error: new HivewatchError('POLICY_COMMIT_REJECTED', {
          message: `channel "${def.name}" written by more than one task in one step (ordinals ${String(previous.ordinal)} and ${String(write.ordinal)}); its update policy allows a single write`,
          origin: 'policy',
          context: { channel: def.key, ordinals: [previous.ordinal, write.ordinal], rule: 'update-policy-single' },
        }),
      };
    }
    seen.set(write.key, write);
    if (def.policy === 'const' && state.written.has(write.key)) {
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
  }

  const values = new Map(state.values);
  const written = new Set(state.written);
  for (const write of ordered) {
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
  return { ok: true, state: { values, written }, applied: ordered };
}

/** The committed values as a plain object, for checkpoints. */
export function snapshotChannels(state: ChannelState): Record<string, unknown> {
  return Object.fromEntries([...state.values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
