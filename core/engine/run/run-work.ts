import { HivewatchError, toHivewatchError } from '../../base/errors/hivewatch-error.js';
import type { AgentSpec, FlowPlan, SessionSpec } from '../../flow/plan/plan.js';
import { planNeedsWorkspace } from '../../flow/plan/workspace-mode.js';
import type { RuntimeRegistry } from '../../runtimes/runtime.js';
import { resolveAgent } from '../task/agents.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { ResumePoint } from '../../base/resume-point.js';
import { taskIdOf } from '../step/resume.js';
import type { RunWorkspaceConfig } from './run-config.js';
import type { PendingTask } from '../step/step.js';
import type { TaskResult } from '../task/task-executor.js';
import type { RunWork } from '../task/task-work.js';

/** A run's agent work: its branch, opened before step 0 when a session needs one. */

export interface RunWorkEnv {
  runId: string;
  plan: FlowPlan;
  registry: RuntimeRegistry;
  workspace: RunWorkspaceConfig | null;
  agentOf: (spec: SessionSpec) => AgentSpec;
  emit: (body: HivewatchEventBody) => void;
}

/** Opens the run's branch when a session works in a worktree: the work (null when none is needed), or the error that prevents it. */
export async function openRunWork(
  env: RunWorkEnv,
  resume: ResumePoint | null,
): Promise<{ ok: true; work: RunWork | null } | { ok: false; error: HivewatchError }> {
  const config = env.workspace;
  if (!planNeedsWorkspace(env.plan, env.agentOf, config?.defaultMode ?? null)) return { ok: true, work: null };
  try {
    // A resumed run continues in the repository its source worked in, from its head.
    const repo = resume?.repo?.root ?? (typeof config?.repo === 'function' ? await config.repo() : (config?.repo ?? null));
    // Without a workspace configuration the run has no agent work to open it with (a bare FlowRun).
    if (repo === null || !config) {
      const error = new HivewatchError('USER_INVALID_CONFIG', {
        message:
          'sessions of this flow work in a git worktree (workspace, scope, verify or expect-changes): give the run a repository (--repo PATH, or repo: in the flow)',
        origin: 'user',
      });
      return { ok: false, error };
    }
    const work = await config.agentWork.open({
      runId: env.runId,
      repo,
      plan: env.plan,
      agentOf: env.agentOf,
      defaultMode: config?.defaultMode ?? null,
      emit: env.emit,
      baseCommit: resume?.repo?.head ?? null,
      ...(config?.worktreeRoot !== undefined ? { worktreeRoot: config.worktreeRoot } : {}),
      ...(config?.gitEnv !== undefined ? { gitEnv: config.gitEnv } : {}),
      ...(config?.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
      runVerifier: (agent, prompt, cwd, signal) => runVerifier(env, agent, prompt, cwd, signal),
    });
    return { ok: true, work };
  } catch (error) {
    return { ok: false, error: toHivewatchError(error) };
  }
}

/** One attempt of a verifier agent, outside the step's tasks: its answer is the verdict. */
async function runVerifier(env: RunWorkEnv, agentName: string, prompt: string, cwd: string, signal: AbortSignal) {
  const agent = resolveAgent(env.plan, agentName);
  if (agent === null)
    return { ok: false as const, error: new HivewatchError('USER_MISSING_DEPENDENCY', { message: `no verifier agent "${agentName}"`, origin: 'user' }) };
  const result = await env.registry.forAgent(agent).execute(
    {
      runId: env.runId,
      taskId: `verifier:${agentName}`,
      ordinal: -1,
      attempt: 1,
      prompt,
      agent,
      simulate: null,
      timeoutMs: agent.timeoutMs,
      context: {},
      cwd,
    },
    signal,
  );
  if (result.kind === 'succeeded') return { ok: true as const, output: result.output };
  if (result.kind === 'cancelled')
    return { ok: false as const, error: new HivewatchError('SYSTEM_CANCELLED', { message: 'the verifier was stopped by a cancel' }) };
  return { ok: false as const, error: result.error };
}

export type StepMerge = { ok: true; head: string; merged: { taskId: string; commit: string }[] } | { ok: false; error: HivewatchError };

/**
 * Merges a step's task commits (ordinal order) into the run's branch, not yet moving it: that
 * happens inside the commit. Before the cancel check, since it waits on git. Null: nothing to merge.
 */
export async function mergeStepWork(
  work: RunWork | null,
  step: number,
  frontier: readonly PendingTask[],
  results: readonly (TaskResult | undefined)[],
): Promise<StepMerge | null> {
  const candidates = frontier.flatMap((task, i) => {
    const result = results[i];
    if (result?.kind !== 'succeeded' || !result.commit) return [];
    const ordinal = task.call.spec.ordinal;
    return [{ taskId: taskIdOf(step, ordinal), ordinal, name: task.call.spec.name, commit: result.commit }];
  });
  if (work === null || candidates.length === 0) return null;
  const merged = await work.merge(candidates);
  if (!merged.ok) return { ok: false, error: merged.error };
  return { ok: true, head: merged.head, merged: candidates.map(({ taskId, commit }) => ({ taskId, commit })) };
}
