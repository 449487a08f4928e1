import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HivewatchEvent } from '../base/events.js';
import { DEFAULT_WORKTREE_ROOT, removeRunWorktrees } from './run-workspace.js';

/** What the sweep needs of the store. */
export interface SweepStore {
  getRunRow(runId: string): Promise<{ status: string } | null>;
  getEvents(runId: string): Promise<HivewatchEvent[]>;
}

const STILL_RUNNING = new Set(['queued', 'running', 'cancelling']);

/**
 * Removes the worktrees of runs that ended without removing them: a host killed with -9 (the next
 * start-up has marked the run interrupted) or a removal that failed. Only runs of this database
 * that are no longer running are touched; a folder of a run the database does not know (another
 * database's, another host's) is left alone. Safe to repeat. Returns the runs swept.
 */
export async function sweepLeftoverWorktrees(store: SweepStore, worktreeRoot: string = DEFAULT_WORKTREE_ROOT): Promise<string[]> {
  if (!existsSync(worktreeRoot)) return [];
  const swept: string[] = [];
  for (const runId of readdirSync(worktreeRoot)) {
    const row = await store.getRunRow(runId);
    if (row === null || STILL_RUNNING.has(row.status)) continue;
    const ready = (await store.getEvents(runId)).find((e): e is Extract<HivewatchEvent, { type: 'workspaceReady' }> => e.type === 'workspaceReady');
    if (!ready) continue;
    await removeRunWorktrees(ready.repo, runId, join(worktreeRoot, runId));
    swept.push(runId);
  }
  return swept;
}
