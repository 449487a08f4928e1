import type { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { AgentSpec } from '../flow/plan/plan.js';
import type { TokenUsage } from '../base/usage.js';

/** Everything a runtime needs for one attempt of one session. */
export interface AttemptRequest {
  runId: string;
  taskId: string;
  ordinal: number;
  /** 1-based. */
  attempt: number;
  /** The prompt with every `{name}` already substituted. */
  prompt: string;
  agent: AgentSpec;
  /** The session's `simulate:` property (the fake runtime's script), or null. */
  simulate: string | null;
  /** Session timeout, else agent timeout, else null (none). */
  timeoutMs: number | null;
  /** Values of the channels named by `context:`. */
  context: Record<string, unknown>;
  /** The attempt's worktree when the session works in one; it wins over the agent's `cwd`. */
  cwd?: string;
  /**
   * Where a runtime that spawns a subprocess reports it, so the host journals the group to end
   * if it dies before the attempt does. Absent: nobody listens.
   */
  reportProcess?: ((report: AttemptProcessReport) => void) | undefined;
  /**
   * Aborted by a forced cancel (a second cancel while cancelling, rule 18): a runtime with
   * a subprocess ends its process group with SIGKILL at once, without the SIGTERM grace. The
   * execute signal has already been aborted by then. Absent: nobody forces.
   */
  killNow?: AbortSignal | undefined;
}

export type AttemptProcessReport =
  /**
   * Right after the spawn: the group id (= the child's pid), its start time and the machine;
   * `telemetry`, the origin whose exporter the child was pointed at Hivewatch's receiver with.
   */
  | { kind: 'started'; pid: number; startTime: string | null; hostname: string; telemetry?: string }
  /** After the attempt: its pipes stayed open once its group was gone (a `setsid` descendant). */
  | { kind: 'outputHeldOpen'; pid: number };

/** The outcome of one attempt. A runtime never retries by itself (rule 3): one call, one attempt. */
export type AttemptResult =
  | { kind: 'succeeded'; output: string; meta?: Record<string, unknown>; process?: ProcessTrace; usage?: TokenUsage }
  /** `usage`: a failed attempt's tokens and cost still count (what failures cost). */
  | { kind: 'failed'; error: HivewatchError; process?: ProcessTrace; usage?: TokenUsage }
  /** The attempt was stopped because `signal` aborted (cancel, fail-fast). */
  | { kind: 'cancelled' };

/** How the attempt's subprocess ended, for the inspector; the engine bounds what it journals. */
export interface ProcessTrace {
  exitCode: number | null;
  signal: string | null;
  /** The runtime's capture (already bounded per stream, TailBuffer). */
  stdout: string;
  stderr: string;
}

export interface SessionRuntime {
  readonly name: string;
  /**
   * The argv an attempt with this prompt runs, for runtimes whose agent is a command line the
   * operator wrote (journaled at attemptStarted instead of the prompt). Absent, or null: the
   * prompt is what describes the attempt.
   */
  commandLine?(agent: AgentSpec, prompt: string): readonly string[] | null;
  /**
   * Runs one attempt. Must resolve (never reject) once the work has stopped; after `signal`
   * aborts it must stop promptly (a subprocess: SIGTERM, then SIGKILL after a grace period).
   */
  execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult>;
}

/** Looks up the runtime for an agent. One per process is fine: runtimes hold no per-run state. */
export interface RuntimeRegistry {
  forAgent(agent: AgentSpec): SessionRuntime;
}
