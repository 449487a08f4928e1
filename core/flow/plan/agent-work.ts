import type { Position } from '../syntax/ast.js';

/**
 * The properties of agent work on a repository (docs/rules.md §5b): where an attempt works
 * (`workspace`), what it may change (`scope`), whether it must change something
 * (`expect-changes`), how its work is checked (`verify`, `verifier`), and what a new worktree
 * needs first (`setup`, on an agent).
 */

export const WorkspaceMode = {
  /** Each task works in a git worktree of its own, on a branch of the run's branch. */
  worktree: 'worktree',
  /** In the current directory, as sessions without agent work do (overrides an agent's default). */
  none: 'none',
} as const;
export type WorkspaceMode = (typeof WorkspaceMode)[keyof typeof WorkspaceMode];

export interface CheckSpec {
  /** `tests` in `verify: tests: "npm test"`: the check's origin is `check:tests`. */
  name: string;
  /** Run with `/bin/sh -c` in the attempt's worktree. */
  command: string;
  pos: Position;
}

export interface SessionWork {
  /** null: the agent's, else the run's default. */
  workspace: WorkspaceMode | null;
  /** null: no scope (any path may change). */
  scope: string[] | null;
  expectChanges: boolean;
  checks: CheckSpec[];
  /** An agent that reviews the attempt's work: `HARD FAIL` / `SOFT FAIL` verdicts. */
  verifier: string | null;
  verifierPos: Position | null;
  /** Per check; default DEFAULT_CHECK_TIMEOUT_MS. */
  checkTimeoutMs: number | null;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 10 * 60_000;

/** Whether a session asks for anything that only a workspace can give. */
export function needsWorkspace(work: SessionWork): boolean {
  return work.scope !== null || work.expectChanges || work.checks.length > 0 || work.verifier !== null;
}
