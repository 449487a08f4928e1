import { describe, expect, it } from 'vitest';
import { commitWrites, emptyChannelState, replaceReducer, type ChannelDef, type StagedWrite } from './channels.js';

const def = (key: string, overrides: Partial<ChannelDef> = {}): ChannelDef => ({
  key,
  name: key.split('@')[0] as string,
  scope: key.includes('@') ? 'branch' : 'global',
  policy: 'single',
  reducer: replaceReducer,
  ...overrides,
});

const channels = (...defs: ChannelDef[]): Map<string, ChannelDef> => new Map(defs.map((d) => [d.key, d]));

describe('commitWrites (pure commit)', () => {
  it('applies writes in ordinal order through each reducer', () => {
    const append = def('log', { reducer: (current, update) => [...((current as unknown[]) ?? []), update] });
    const writes: StagedWrite[] = [
      { key: 'log', value: 'second', ordinal: 3 },
      { key: 'x', value: 1, ordinal: 1 },
    ];
    const first = commitWrites(emptyChannelState(), writes, channels(append, def('x')));
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.applied.map((w) => w.ordinal)).toEqual([1, 3]);
    const second = commitWrites(first.state, [{ key: 'log', value: 'third', ordinal: 0 }], channels(append, def('x')));
    expect(second.ok && Object.fromEntries(second.state.values)).toEqual({ log: ['second', 'third'], x: 1 });
  });

  it('unknown channel beats update-policy violation, whatever the order of the writes', () => {
    const writes: StagedWrite[] = [
      { key: 'x', value: 1, ordinal: 0 },
      { key: 'x', value: 2, ordinal: 1 },
      { key: 'ghost', value: 3, ordinal: 2 },
    ];
    const result = commitWrites(emptyChannelState(), writes, channels(def('x')));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(result.ordinal).toBe(2);
  });

  it('branch-local keys of one name are distinct channels: one write per task each', () => {
    const writes: StagedWrite[] = [
      { key: 'note@b0', value: 'left', ordinal: 0 },
      { key: 'note@b1', value: 'right', ordinal: 1 },
    ];
    const result = commitWrites(emptyChannelState(), writes, channels(def('note@b0'), def('note@b1')));
    expect(result.ok).toBe(true);
  });

  it('const channels accept one write per run', () => {
    const c = channels(def('k', { policy: 'const' }));
    const first = commitWrites(emptyChannelState(), [{ key: 'k', value: 1, ordinal: 0 }], c);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const second = commitWrites(first.state, [{ key: 'k', value: 2, ordinal: 0 }], c);
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.error.message).toBe('const channel "k" is already set');
  });

  it('a reducer that throws rejects the whole commit and leaves the state untouched', () => {
    const state = emptyChannelState();
    const throwing = def('bad', { reducer: () => { throw new Error('nope'); } });
    const result = commitWrites(state, [{ key: 'x', value: 1, ordinal: 0 }, { key: 'bad', value: 2, ordinal: 1 }], channels(def('x'), throwing));
    expect(result.ok).toBe(false);
    expect(state.values.size).toBe(0);
  });
});
