import type { AgentWork, Inspection, RunWork, RunWorkOptions, TaskWork } from '../engine/task/task-work.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { DEFAULT_CHECK_TIMEOUT_MS, WorkspaceMode } from '../flow/plan/agent-work.js';
import { workspaceModeOf } from '../flow/plan/workspace-mode.js';
import type { AgentSpec, SessionSpec } from '../flow/plan/plan.js';
import { scopeMatcher } from '../flow/plan/scope.js';
import { Redactor } from '../runtimes/secrets/secrets.js';
import { RunWorkspace } from './run-workspace.js';
import type { TaskWorktree } from './task-worktree.js';
import { checkError, runShell, type CommandRecord } from './verify.js';
import { verdictError, verifierPrompt } from './verifier.js';

/**
 * Agent work over git (docs/rules.md §5b): the engine's RunWork and TaskWork made of a
 * RunWorkspace (the run branch, task worktrees, merges) and the session's scope, expected
 * changes, checks and verifier. Everything it learns goes to the journal through `emit`.
 */

/** Agent work over git: what the service gives each run it hosts (RunWorkspaceConfig.agentWork). */
export const gitAgentWork: AgentWork = { open: (options) => openGitRunWork(options) };

async function openGitRunWork(options: RunWorkOptions): Promise<RunWork> {
  const workspace = await RunWorkspace.open({
    runId: options.runId,
    repo: options.repo,
    baseCommit: options.baseCommit,
    worktreeRoot: options.worktreeRoot,
    gitEnv: options.gitEnv,
  });
  options.emit({ type: 'workspaceReady', repo: workspace.root, branch: workspace.branch, base: workspace.baseCommit, worktreeDir: workspace.worktreeDir });
  return new GitRunWork(workspace, options);
}

class GitRunWork implements RunWork {
  constructor(
    private readonly workspace: RunWorkspace,
    private readonly options: RunWorkOptions,
  ) {}

  get branch(): string {
    return this.workspace.branch;
  }

  get head(): string {
    return this.workspace.head;
  }

  forTask(taskId: string, ordinal: number): TaskWork | null {
    const spec = this.options.plan.sessions[ordinal];
    if (!spec) return null;
    const agent = this.options.agentOf(spec);
    if (workspaceModeOf(spec, agent, this.options.defaultMode) !== WorkspaceMode.worktree) return null;
    return new GitTaskWork(this.workspace, { taskId, ordinal, spec, agent }, this.options);
  }

  async merge(candidates: readonly { taskId: string; ordinal: number; name: string; commit: string }[]) {
    const merged = await this.workspace.merge(candidates);
    return merged.ok ? { ok: true as const, head: merged.head } : merged;
  }

  advance(head: string): void {
    this.workspace.advance(head);
  }

  close(): Promise<void> {
    return this.workspace.close();
  }
}

interface TaskIdentity {
  taskId: string;
  ordinal: number;
  spec: SessionSpec;
  agent: AgentSpec;
}

class GitTaskWork implements TaskWork {
  private worktree: TaskWorktree | null = null;

  constructor(
    private readonly workspace: RunWorkspace,
    private readonly task: TaskIdentity,
    private readonly options: RunWorkOptions,
  ) {}

  private ref(attempt: number) {
    return { step: Number(this.task.taskId.split(':')[0]), ordinal: this.task.ordinal, taskId: this.task.taskId, attempt };
  }

  private get timeoutMs(): number {
    return this.task.spec.work.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  }

  /** How setup and checks run: in the worktree, bounded, their output cleared of every agent's secrets before it is cut. */
  private shell(signal: AbortSignal, cwd: string) {
    return { cwd, timeoutMs: this.timeoutMs, signal, killGraceMs: this.options.killGraceMs, redactor: Redactor.forChild(this.options.plan.agents.values()) };
  }

  private record(attempt: number, name: string, kind: 'setup' | 'check' | 'verifier', record: CommandRecord): void {
    this.options.emit({
      type: 'checkFinished',
      ...this.ref(attempt),
      name,
      kind,
      ok: record.ok,
      exitCode: record.exitCode,
      signal: record.signal,
      timedOut: record.timedOut,
      durationMs: record.durationMs,
      outputTail: record.outputTail,
    });
  }

  async prepare(attempt: number, signal: AbortSignal): Promise<string> {
    const fresh = this.worktree === null;
    const worktree = this.worktree ?? (await this.workspace.taskWorktree(this.task.taskId));
    this.worktree = worktree;
    // A failed attempt's changes are discarded (rule 2): every attempt starts from the task's base.
    if (!fresh) await worktree.reset();
    const setup = this.task.agent.setup;
    if (setup !== null && !worktree.setupDone) {
      const record = await runShell(setup, this.shell(signal, worktree.path));
      if (!record.cancelled) this.record(attempt, 'setup', 'setup', record);
      if (!record.ok) {
        throw new HivewatchError('RUNTIME_CRASHED', {
          message: record.timedOut
            ? `setup (${setup}) ran past its timeout`
            : `setup (${setup}) failed with exit code ${String(record.exitCode ?? record.signal)}`,
          origin: 'runtime:setup',
          context: { setup, exitCode: record.exitCode, signal: record.signal, outputTail: record.outputTail },
        });
      }
      worktree.setupDone = true;
    }
    return worktree.path;
  }

  async inspect(attempt: number, output: string, signal: AbortSignal): Promise<Inspection> {
    const worktree = this.worktree;
    if (worktree === null) throw new Error('inspect before prepare');
    const { work } = this.task.spec;
    const { changed, diffStat } = await worktree.changes();
    const inScope = work.scope === null ? () => true : scopeMatcher(work.scope);
    const outsideScope = changed.map((c) => c.path).filter((path) => !inScope(path));
    this.options.emit({ type: 'attemptChanges', ...this.ref(attempt), changed, diffStat, outsideScope });
    const changes = { changed: changed.map((c) => c.path), diffStat };
    if (outsideScope.length > 0) {
      return failed(
        new HivewatchError('SCOPE_VIOLATION_WRITE', {
          message: `the attempt changed ${outsideScope.length} file(s) outside its scope (${(work.scope ?? []).join(', ')}): ${outsideScope.slice(0, 5).join(', ')}${outsideScope.length > 5 ? ', …' : ''}`,
          origin: 'scope_enforcer',
          context: { outsideScope, scope: work.scope, ...changes },
        }),
      );
    }
    if (work.expectChanges && changed.length === 0) {
      return failed(
        new HivewatchError('AGENT_NO_CHANGES', {
          message: 'the agent finished without changing a file (expect-changes: true)',
          origin: `agent:${this.task.agent.name}`,
          context: changes,
        }),
      );
    }
    // Scope was measured before the checks: what they write is neither checked nor committed.
    for (const check of work.checks) {
      const record = await runShell(check.command, this.shell(signal, worktree.path));
      if (record.cancelled) return failed(new HivewatchError('SYSTEM_CANCELLED', { message: `check ${check.name} was stopped by a cancel` }));
      this.record(attempt, check.name, 'check', record);
      if (!record.ok) {
        const error = checkError(check.name, check.command, record, this.timeoutMs);
        return failed(new HivewatchError(error.code, { message: error.message, origin: error.origin, context: { ...error.context, diffStat } }));
      }
    }
    if (work.verifier !== null && this.options.runVerifier) {
      const verdict = await this.options.runVerifier(work.verifier, verifierPrompt(this.task.spec.name, output, diffStat), worktree.path, signal);
      if (!verdict.ok) return failed(verdict.error);
      const rejection = verdictError(work.verifier, verdict.output, diffStat);
      this.options.emit({
        type: 'checkFinished',
        ...this.ref(attempt),
        name: work.verifier,
        kind: 'verifier',
        ok: rejection === null,
        exitCode: null,
        signal: null,
        timedOut: false,
        durationMs: 0,
        outputTail: verdict.output.slice(-2000),
      });
      if (rejection) return failed(rejection);
    }
    if (changed.length === 0) return { ok: true, commit: null };
    const commit = await worktree.commit(`hivewatch: ${this.task.taskId} ${this.task.spec.name} (attempt ${attempt})`);
    this.options.emit({ type: 'attemptCommitted', ...this.ref(attempt), commit, branch: worktree.branch });
    return { ok: true, commit };
  }
}

function failed(error: HivewatchError): Inspection {
  return { ok: false, error };
}
