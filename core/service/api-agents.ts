/** The API's shapes of agent trees (a session's run and its subagents' runs), re-exported by api.ts. */
import type { RunStatus } from '../base/events.js';
import type { UsageTotalsView } from './api-usage.js';

/**
 * One run of an agent tree. `own`: what this agent's requests spent; `subagents`: what the
 * subagents it started spent, theirs included, to any depth; `total`: the two added. Each
 * request is journaled in exactly one run, so no figure counts a request twice (docs/otel.md
 * "Subagents"). Null figures: nothing reported.
 */
export interface AgentTreeNodeView {
  runId: string;
  parentRunId: string | null;
  /** The subagent's id and kind as the CLI named them (null for the tree's root session). */
  agentId: string | null;
  agentName: string | null;
  depth: number;
  /** Null while the run is named by a subagent's telemetry but none of its own arrived. */
  name: string | null;
  status: RunStatus | null;
  startedAt: number | null;
  endedAt: number | null;
  attempts: number;
  errorCount: number;
  own: UsageTotalsView | null;
  subagents: UsageTotalsView | null;
  total: UsageTotalsView | null;
}

/** The tree a run belongs to: its root first, each parent before its children. */
export interface AgentTreeView {
  rootRunId: string;
  nodes: AgentTreeNodeView[];
}
