import { hostname } from 'node:os';
import { classifyObservation } from '../base/errors/classify.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { agentCommandProblems } from '../flow/plan/command-safety.js';
import type { AgentSpec } from '../flow/plan/plan.js';
import { CommandLineError, commandValues, shellScriptFromTemplate, splitCommandTemplate } from './command-line.js';
import { runProcess, type ProcessResult } from './process/process.js';
import { Redactor } from './secrets/secrets.js';
import type { AttemptRequest, AttemptResult, ProcessTrace, SessionRuntime } from './runtime.js';

/**
 * The `command` runtime: one subprocess per attempt, its trimmed stdout is the session's
 * output, its failures are classified by `classifyObservation`. It never retries: the engine
 * is the only layer that does (rule 3). The presets (claude-code, codex-cli) reuse
 * `runAttemptProcess` with their own command lines and output readers.
 */

export interface ProcessRuntimeOptions {
  /** SIGTERM → SIGKILL grace on timeout or cancellation. */
  killGraceMs?: number | undefined;
  /** Per stream, default 1 MiB. */
  maxCaptureBytes?: number | undefined;
}

/** Reads a process that ran to its end (not cancelled, started, not timed out) into a result. */
export type OutputReader = (observation: ProcessResult, request: AttemptRequest) => AttemptResult;

/** An agent whose configuration cannot be turned into a command line: the user's to fix, never retried. */
export function agentConfigError(agent: AgentSpec, problem: string): AttemptResult {
  return {
    kind: 'failed',
    error: new HivewatchError('USER_INVALID_CONFIG', {
      message: `agent "${agent.name}" (runtime ${agent.runtime}): ${problem}`,
      origin: 'user',
      context: { agent: agent.name, runtime: agent.runtime },
    }),
  };
}

/**
 * Linux refuses an environment string (NAME=value and its NUL) longer than 32 pages
 * (MAX_ARG_STRLEN, 131,072 bytes; execve(2)), and no C string carries a NUL. A prompt that breaks
 * either cannot reach the agent, as `$HIVEWATCH_PROMPT` or as an argument.
 */
const MAX_ENV_STRING_BYTES = 131_072;
const PROMPT_ENV = 'HIVEWATCH_PROMPT';

function fitsEnvironment(name: string, value: string): boolean {
  return Buffer.byteLength(`${name}=${value}`) + 1 <= MAX_ENV_STRING_BYTES && !value.includes('\0');
}

/**
 * Why this prompt cannot be given to an agent process, or null. Said before anything starts, as
 * USER_INVALID_PROMPT: the spawn would fail (E2BIG, a NUL Node refuses) or, were the prompt left
 * out of the environment, the agent would silently be given an empty one.
 */
function promptProblem(prompt: string): string | null {
  const nul = prompt.indexOf('\0');
  if (nul !== -1) {
    return `the prompt holds a NUL character (at character ${nul}), which no process argument or environment variable can carry; remove it from what the prompt takes in (an earlier output, a file)`;
  }
  if (fitsEnvironment(PROMPT_ENV, prompt)) return null;
  const bytes = Buffer.byteLength(prompt);
  return `the prompt is ${bytes} bytes; an agent is given its prompt as ${PROMPT_ENV} or an argument, and Linux allows at most ${MAX_ENV_STRING_BYTES - PROMPT_ENV.length - 2} bytes there (128 KiB per string); pass less into it`;
}

function invalidPrompt(request: AttemptRequest, runtimeName: string, problem: string): AttemptResult {
  return {
    kind: 'failed',
    error: new HivewatchError('USER_INVALID_PROMPT', {
      message: `agent "${request.agent.name}" (runtime ${runtimeName}): ${problem}`,
      origin: 'user',
      context: { agent: request.agent.name, runtime: runtimeName, promptBytes: Buffer.byteLength(request.prompt) },
    }),
  };
}

/**
 * Names given to every command runtime child, so a script can tell attempts apart, and the
 * values themselves: `HIVEWATCH_PROMPT` (the rendered prompt) and `HIVEWATCH_MODEL` (the agent's
 * model). The environment is how a prompt reaches any program but printf and the presets' CLIs:
 * a script passes "$HIVEWATCH_PROMPT" on, or pipes it to a tool's stdin, and no shell ever reads
 * it as script text (`core/flow/plan/command-safety.ts`). A prompt that cannot be an environment
 * string never gets this far (`promptProblem`); the agent's own `env:` cannot override these names.
 */
export function attemptEnv(request: AttemptRequest): Record<string, string> {
  const values: Record<string, string> = {};
  if (fitsEnvironment(PROMPT_ENV, request.prompt)) values[PROMPT_ENV] = request.prompt;
  if (request.agent.model !== null && fitsEnvironment('HIVEWATCH_MODEL', request.agent.model)) values.HIVEWATCH_MODEL = request.agent.model;
  return {
    ...request.agent.env,
    ...values,
    HIVEWATCH_RUN_ID: request.runId,
    HIVEWATCH_TASK_ID: request.taskId,
    HIVEWATCH_ATTEMPT: String(request.attempt),
  };
}

/**
 * Runs argv for one attempt. Cancellation, a failed start and a timeout explain themselves and
 * are settled here; anything else (exit 0 or not) is the reader's to interpret, because a preset
 * may find a better explanation in stdout than the exit code gives.
 *
 * A child that was told to stop but exited by itself (it handled SIGTERM, printed what it had and
 * exited) reports what it answered, not `cancelled`: the engine keeps that on the record as a
 * stale receipt (rule 12) or what a sibling-cancelled attempt reported (F6), and acts on nothing.
 * Only a child ended by a signal is plain `cancelled`.
 */
export async function runAttemptProcess(
  argv: readonly string[],
  request: AttemptRequest,
  signal: AbortSignal,
  how: {
    runtimeName: string;
    read: OutputReader;
    options?: ProcessRuntimeOptions | undefined;
    env?: Record<string, string> | undefined;
    cwd?: string | null | undefined;
    /** The origin whose exporter `env` / argv point at Hivewatch's receiver, journaled with the process. */
    telemetry?: string | undefined;
  },
): Promise<AttemptResult> {
  const problem = promptProblem(request.prompt);
  if (problem !== null) return invalidPrompt(request, how.runtimeName, problem);
  const observation = await runProcess({
    argv,
    runtimeName: how.runtimeName,
    env: how.env ?? attemptEnv(request),
    cwd: how.cwd === undefined ? (request.cwd ?? request.agent.cwd) : how.cwd,
    timeoutMs: request.timeoutMs,
    killGraceMs: how.options?.killGraceMs,
    maxCaptureBytes: how.options?.maxCaptureBytes,
    signal,
    killNow: request.killNow,
    onStarted: (started) =>
      request.reportProcess?.({ kind: 'started', ...started, hostname: hostname(), ...(how.telemetry !== undefined ? { telemetry: how.telemetry } : {}) }),
    // At the source: every message, tail and output below is made from already redacted text.
    redactor: Redactor.forChild(request.agent),
  });
  if (observation.outputHeldOpen && observation.pid !== null) request.reportProcess?.({ kind: 'outputHeldOpen', pid: observation.pid });
  if (observation.cancelled && !exitedByItself(observation)) return { kind: 'cancelled' };
  if (observation.spawnError || observation.timedOut) {
    return { kind: 'failed', error: classifyObservation(observation) as HivewatchError, process: processTrace(observation) };
  }
  const result = how.read(observation, request);
  return result.kind === 'cancelled' ? result : { ...result, process: processTrace(observation) };
}

/** The child ended with an exit status of its own, not by a signal (nor before it started). */
export function exitedByItself(observation: ProcessResult): boolean {
  return observation.exitCode !== null && observation.signal === null && !observation.spawnError;
}

/** What the inspector shows of a finished process (the engine bounds it further when journaling). */
export function processTrace(observation: ProcessResult): ProcessTrace {
  return { exitCode: observation.exitCode, signal: observation.signal, stdout: observation.stdout, stderr: observation.stderr };
}

/** The plain reader: a failed process is classified, a successful one's stdout (trimmed) is the output. */
function readPlainOutput(observation: ProcessResult): AttemptResult {
  const error = classifyObservation(observation);
  if (error) return { kind: 'failed', error };
  const output = observation.stdout.trim();
  return observation.stdoutDroppedBytes > 0
    ? { kind: 'succeeded', output, meta: { stdoutDroppedBytes: observation.stdoutDroppedBytes } }
    : { kind: 'succeeded', output };
}

/**
 * A command that would give a value to anything not known to take it as data is refused before
 * anything starts, whatever skipped `check` (a resumed journal, a plan built in code): the same
 * judgement as `check`'s.
 */
export function unsafeCommand(agent: AgentSpec): AttemptResult | null {
  const problem = agentCommandProblems(agent)[0];
  if (problem === undefined) return null;
  const where = agent.command !== null && problem.pos !== agent.command.pos ? `${problem.pos.line}:${problem.pos.column}: ` : '';
  return agentConfigError(agent, `command: ${where}${problem.message}`);
}

/**
 * The argv (or `/bin/sh -c` script) of an agent's `command:` template. Returns a failed result
 * instead of argv when the template cannot be used.
 */
export function commandArgv(agent: AgentSpec, prompt: string): string[] | AttemptResult {
  if (agent.command === null) return agentConfigError(agent, 'no command: given; set command: "tool" (it finds the prompt in $HIVEWATCH_PROMPT)');
  const unsafe = unsafeCommand(agent);
  if (unsafe) return unsafe;
  const values = commandValues(prompt, agent.model);
  try {
    if (agent.shell) return ['/bin/sh', '-c', shellScriptFromTemplate(agent.command)];
    const argv = splitCommandTemplate(agent.command, values);
    return argv.length === 0 ? agentConfigError(agent, 'command: is empty') : argv;
  } catch (error) {
    if (error instanceof CommandLineError) return agentConfigError(agent, error.message);
    throw error;
  }
}

export class CommandRuntime implements SessionRuntime {
  readonly name: string = 'command';

  constructor(private readonly options: ProcessRuntimeOptions = {}) {}

  commandLine(agent: AgentSpec, prompt: string): readonly string[] | null {
    const argv = commandArgv(agent, prompt);
    return Array.isArray(argv) ? argv : null;
  }

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const argv = commandArgv(request.agent, request.prompt);
    if (!Array.isArray(argv)) return argv;
    return runAttemptProcess(argv, request, signal, { runtimeName: this.name, read: readPlainOutput, options: this.options });
  }
}
