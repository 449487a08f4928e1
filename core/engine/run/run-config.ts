import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import type { WorkspaceMode } from '../../flow/plan/agent-work.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import type { RuntimeRegistry } from '../../runtimes/runtime.js';
import type { Reducer } from '../interpret/channels.js';
import type { Clock } from '../../base/clock.js';
import type { EventSink } from '../../base/events.js';
import type { Limiter } from '../task/limiter.js';
import type { AgentWork } from '../task/task-work.js';
import type { ResumePoint } from '../../base/resume-point.js';

/** What a run is given (`FlowRun`) and what it answers. */

export interface RunConfig {
  plan: FlowPlan;
  registry: RuntimeRegistry;
  sink: EventSink;
  clock?: Clock;
  runId?: string;
  /** The run stops before starting step maxSteps + 1 (rule 8). Default 100. */
  maxSteps?: number;
  /** Tasks of one step running at once. Default 4. */
  concurrency?: number;
  /** A limit shared with other runs (the service's global concurrency). */
  sharedLimiter?: Limiter;
  /** Agent for sessions that name none: a flow agent or a built-in preset. */
  defaultAgent?: string | null;
  project?: string | null;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** Custom reducers by channel name (the language's default replaces the value). */
  reducers?: Readonly<Record<string, Reducer>>;
  /** The repository of agent work; sessions that work in a worktree need it. */
  workspace?: RunWorkspaceConfig | null;
}

export interface RunWorkspaceConfig {
  /** A folder inside the repository, or how to find one: asked only when a session needs it. */
  repo: string | (() => Promise<string | null>);
  /** The implementation of agent work (core/workspace's `gitAgentWork`), given by the composition root. */
  agentWork: AgentWork;
  /** The run's `--workspace`: where sessions work unless they or their agent say. */
  defaultMode?: WorkspaceMode | null;
  worktreeRoot?: string;
  gitEnv?: Record<string, string>;
  killGraceMs?: number;
}

export interface RunResult {
  runId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** The ending error (rule 16) with its cause chain nested; null unless the run failed. */
  error: ErrorEnvelope | null;
  steps: number;
  channels: Record<string, unknown>;
  /**
   * Set when the run's last events could not be journaled (SYSTEM_EVENT_WRITE_FAILED, e.g. a full
   * disk): they wait in the sink's buffer, written by its next successful flush.
   */
  unjournaled?: ErrorEnvelope;
}

/** `examples/01-happy-path.prose` → `01-happy-path`. */
export function flowNameOf(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.prose$/, '');
}
