import { needsWorkspace, WorkspaceMode } from './agent-work.js';
import type { AgentSpec, FlowPlan, SessionSpec } from './plan.js';

/**
 * Where a session works: its own `workspace:`, its agent's, the run's; work properties imply a
 * worktree. `agent` is null for a name the flow does not define (the check reports it as a
 * diagnostic; the Flows list still describes the file, and must not crash on it).
 */
export function workspaceModeOf(spec: SessionSpec, agent: AgentSpec | null, defaultMode: WorkspaceMode | null): WorkspaceMode {
  if (needsWorkspace(spec.work)) return WorkspaceMode.worktree;
  return spec.work.workspace ?? agent?.workspace ?? defaultMode ?? WorkspaceMode.none;
}

/** Whether any session of the plan works in a git worktree: then the run needs a repository and agent work. */
export function planNeedsWorkspace(plan: FlowPlan, agentOf: (spec: SessionSpec) => AgentSpec | null, defaultMode: WorkspaceMode | null): boolean {
  return plan.sessions.some((spec) => workspaceModeOf(spec, agentOf(spec), defaultMode) === WorkspaceMode.worktree);
}
