import type { TaskRef } from './task-events.js';

/**
 * Agent work's events (docs/rules.md §5b): the run's branch in a repository, what each attempt
 * changed, its setup and verify checks, its commit, and the step's merge into the run's branch.
 */

export type AgentWorkEventBody =
  /** The run's place in a repository (agent work): its branch starts at `base`. */
  | { type: 'workspaceReady'; repo: string; branch: string; base: string; worktreeDir: string }
  /** What an attempt changed against its start, and what of it lies outside the session's scope. */
  | (TaskRef & { type: 'attemptChanges'; attempt: number; changed: { path: string; status: string }[]; diffStat: string; outsideScope: string[] })
  /** A `setup:` or `verify:` command's end, in the attempt's worktree. */
  | (TaskRef & {
      type: 'checkFinished';
      attempt: number;
      /** `setup`, or the check's name. */
      name: string;
      kind: 'setup' | 'check' | 'verifier';
      ok: boolean;
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      durationMs: number;
      outputTail: string;
    })
  /** A successful attempt's changes, committed on the task's branch. */
  | (TaskRef & { type: 'attemptCommitted'; attempt: number; commit: string; branch: string })
  /** Commit-scoped: the step's task commits merged into the run's branch in ordinal order. */
  | { type: 'branchMerged'; step: number; branch: string; head: string; merged: { taskId: string; commit: string }[] };
