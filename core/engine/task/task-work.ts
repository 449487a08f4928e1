import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { WorkspaceMode } from '../../flow/plan/agent-work.js';
import type { AgentSpec, FlowPlan, SessionSpec } from '../../flow/plan/plan.js';

/**
 * Agent work around an attempt (docs/rules.md §5b), as the retry executor sees it: a clean
 * worktree before each attempt, an inspection after the agent succeeded (scope, expected changes,
 * checks, verifier, commit). Behind this interface the executor knows nothing of git.
 */
export interface TaskWork {
  /** A clean worktree at the task's base (`setup:` first in a new one): the attempt's cwd. Throws HivewatchError. */
  prepare(attempt: number, signal: AbortSignal): Promise<string>;
  /** After the agent succeeded. A failure fails the attempt (its changes are discarded by the next prepare). */
  inspect(attempt: number, output: string, signal: AbortSignal): Promise<Inspection>;
}

export type Inspection = { ok: true; commit: string | null } | { ok: false; error: HivewatchError };

/** The run side of agent work: one branch per run, merged at each step's commit. */
export interface RunWork {
  readonly branch: string;
  readonly head: string;
  /** The task's work, or null when its session runs without a workspace. */
  forTask(taskId: string, ordinal: number): TaskWork | null;
  /** Merges the step's task commits in ordinal order, without moving the branch. */
  merge(
    candidates: readonly { taskId: string; ordinal: number; name: string; commit: string }[],
  ): Promise<{ ok: true; head: string } | { ok: false; error: HivewatchError }>;
  /** Moves the run branch to a merged head: synchronous, inside the commit's uninterrupted stretch. */
  advance(head: string): void;
  /** Removes the run's worktrees (the run branch stays: it holds the work). */
  close(): Promise<void>;
}

/**
 * How the engine gets a run's agent work without knowing git: the engine owns this
 * interface, core/workspace implements it (`gitAgentWork`), and the composition root
 * (core/service) hands it to each run in `RunWorkspaceConfig.agentWork`.
 */
export interface AgentWork {
  /** Opens the run's branch (emitting `workspaceReady`); throws HivewatchError when it cannot. */
  open(options: RunWorkOptions): Promise<RunWork>;
}

/** What opening a run's agent work is told. */
export interface RunWorkOptions {
  runId: string;
  repo: string;
  plan: FlowPlan;
  /** The agent a session runs with (its own, else the run's default). */
  agentOf: (spec: SessionSpec) => AgentSpec;
  /** The run's `--workspace` option, or null. */
  defaultMode: WorkspaceMode | null;
  emit: (body: HivewatchEventBody) => void;
  /** Where the run branch starts; default the repository's HEAD (a resumed run: its source's head). */
  baseCommit?: string | null;
  worktreeRoot?: string;
  gitEnv?: Record<string, string>;
  killGraceMs?: number;
  /** Runs the verifier agent once on a prompt in a worktree; resolves with its answer or its error. */
  runVerifier?: (
    agent: string,
    prompt: string,
    cwd: string,
    signal: AbortSignal,
  ) => Promise<{ ok: true; output: string } | { ok: false; error: HivewatchError }>;
}

/** Bounds of what a retry is told (the prompt must stay a prompt). */
const FEEDBACK_TAIL_CHARS = 2_000;

const tail = (text: string): string => (text.length <= FEEDBACK_TAIL_CHARS ? text : `…${text.slice(text.length - FEEDBACK_TAIL_CHARS + 1)}`);

/**
 * What the next attempt is told of the previous one's failure (openprose-error-handling.md, open
 * question 3, "with prior context"): its error, the changes that were discarded, and the failing
 * check's output. Pure: the journal records it with the attempt it was given to.
 */
export function feedbackFor(error: HivewatchError, attempt: number): string {
  const lines = [`The previous attempt (${attempt}) failed: ${error.code} from ${error.origin}: ${error.message}`];
  const context = error.context;
  const outside = context.outsideScope;
  if (Array.isArray(outside) && outside.length > 0) lines.push(`It changed files outside the allowed scope: ${outside.join(', ')}`);
  if (typeof context.diffStat === 'string' && context.diffStat !== '') lines.push(`Its changes were discarded:\n${context.diffStat}`);
  if (typeof context.outputTail === 'string' && context.outputTail !== '') lines.push(`Output of ${error.origin}:\n${tail(context.outputTail)}`);
  lines.push('You start again from a clean copy of the repository.');
  return lines.join('\n\n');
}
