import { useCallback, useMemo, useState } from 'react';
import type { RunSummary } from '../../core/service/api.js';

/**
 * The Runs list with each session's subagents folded under it (docs/otel.md "Subagents"): a
 * subagent's run whose parent is listed leaves the list's order and is shown right under its
 * parent, its own subagents under it, once the parent is unfolded. A subagent whose parent is
 * not listed (filtered out, not loaded yet) stays where the list put it.
 */
export function foldSubagents(rows: readonly RunSummary[], unfolded: ReadonlySet<string>): RunSummary[] {
  const listed = new Set(rows.map((r) => r.id));
  const children = new Map<string, RunSummary[]>();
  for (const row of rows) {
    const parent = row.spawnedBy ?? null;
    if (parent === null || parent === row.id || !listed.has(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), row]);
  }
  if (children.size === 0) return rows as RunSummary[];
  const isRoot = (row: RunSummary): boolean => {
    const parent = row.spawnedBy ?? null;
    return parent === null || parent === row.id || !listed.has(parent);
  };
  // Runs under a root, folded or not; the rest are runs of a cycle of spawns (hostile telemetry),
  // which have no root to hang under: they are listed where they are, never lost.
  const rooted = new Set<string>();
  const mark = (row: RunSummary): void => {
    if (rooted.has(row.id)) return;
    rooted.add(row.id);
    for (const child of children.get(row.id) ?? []) mark(child);
  };
  rows.filter(isRoot).forEach(mark);
  const out: RunSummary[] = [];
  const placed = new Set<string>();
  const place = (row: RunSummary): void => {
    if (placed.has(row.id)) return;
    placed.add(row.id);
    out.push(row);
    if (unfolded.has(row.id)) for (const child of children.get(row.id) ?? []) place(child);
  };
  for (const row of rows) if (isRoot(row) || !rooted.has(row.id)) place(row);
  return out;
}

/** The folded rows and the toggle of one run's subagents. */
export function useSubagentFolding(rows: readonly RunSummary[]): {
  rows: readonly RunSummary[];
  unfolded: ReadonlySet<string>;
  toggle: (runId: string) => void;
} {
  const [unfolded, setUnfolded] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = useCallback((runId: string) => {
    setUnfolded((before) => {
      const next = new Set(before);
      if (next.has(runId)) next.delete(runId);
      else next.add(runId);
      return next;
    });
  }, []);
  const folded = useMemo(() => foldSubagents(rows, unfolded), [rows, unfolded]);
  return { rows: folded, unfolded, toggle };
}
