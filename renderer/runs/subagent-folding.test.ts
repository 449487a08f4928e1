import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/service/api.js';
import { foldSubagents } from './subagent-folding.js';

const row = (id: string, spawnedBy: string | null = null): RunSummary => ({ id, ...(spawnedBy !== null ? { spawnedBy } : {}) }) as RunSummary;
const ids = (rows: readonly RunSummary[]): string[] => rows.map((r) => r.id);

describe('foldSubagents', () => {
  // The list's order is newest first: subagents started after their session come above it.
  const rows = [row('sub-b', 'sub-a'), row('sub-c', 'main'), row('sub-a', 'main'), row('other'), row('main'), row('orphan', 'not-listed')];

  it('hides the subagents of a folded session, and keeps a subagent whose parent is not listed', () => {
    expect(ids(foldSubagents(rows, new Set()))).toEqual(['other', 'main', 'orphan']);
  });

  it('shows an unfolded session its subagents right under it, nested ones under theirs once unfolded too', () => {
    expect(ids(foldSubagents(rows, new Set(['main'])))).toEqual(['other', 'main', 'sub-c', 'sub-a', 'orphan']);
    expect(ids(foldSubagents(rows, new Set(['main', 'sub-a'])))).toEqual(['other', 'main', 'sub-c', 'sub-a', 'sub-b', 'orphan']);
  });

  it('places each run once whatever its spawns say (a run naming itself, a cycle)', () => {
    const odd = [row('self', 'self'), row('x', 'y'), row('y', 'x')];
    // x and y each name the other: neither has a root to hang under, and neither is lost or repeated.
    expect(ids(foldSubagents(odd, new Set(['self', 'x', 'y'])))).toEqual(['self', 'x', 'y']);
    expect(ids(foldSubagents(odd, new Set()))).toEqual(['self', 'x', 'y']);
  });

  it('leaves a list without subagents as it is', () => {
    const plain = [row('a'), row('b')];
    expect(foldSubagents(plain, new Set())).toBe(plain);
  });
});
