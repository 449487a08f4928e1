import { statSync } from 'node:fs';
import type { RuntimeObservation } from '../../base/errors/classify.js';
import { GroupEnding } from './process-kill.js';
import { OutputTails } from './process-output.js';
import { inheritedEnv, Redactor } from '../secrets/secrets.js';
import { startAgentProcess, type AgentProcess, type StartFailure } from './spawner.js';
import { DEFAULT_CAPTURE_BYTES } from './tail-buffer.js';

/**
 * Runs one child process for one attempt and reports what happened, never throwing: a missing
 * executable, a timeout and a cancellation are all observations for the caller to classify.
 *
 * - argv is passed as is (no shell): the caller decides whether to go through `/bin/sh -c`.
 * - The process is started by the spawner (spawner.ts), a small helper process, so this host's
 *   heap is never forked; its output and exit status are relayed back.
 * - The child leads its own process group (`detached: true`), so a kill reaches whatever it
 *   spawned (an agent CLI starting tools, `sh -c` starting a pipeline) via `kill(-pid, sig)`.
 * - Timeout and abort both stop it the same way: SIGTERM to the group, then SIGKILL after a
 *   grace period, so a child that ignores SIGTERM still goes away (rule 11). `killNow`
 *   skips (or cuts short) the grace: SIGKILL at once (a forced cancel, rule 18).
 * - When the child exits by itself (success or failure), whatever it left in its group
 *   (`sleep 300 &`) is ended the same way: the attempt settles once its group is gone and its
 *   pipes are closed, so nothing of an attempt outlives it. Output is drained until the pipes
 *   close, with no fixed wait; only a process outside the group (a `setsid` grandchild, which
 *   no group signal reaches) can hold them open, and then reading stops one grace period after
 *   the group is gone and the result says so (`outputHeldOpen`).
 * - stdout and stderr keep only their last `maxCaptureBytes` each (process-output.ts): constant
 *   memory however much the child writes; secrets are taken out as the output arrives, before
 *   anything of it is dropped.
 * - The spawner dying mid-attempt loses the output still to come and the exit status: the
 *   attempt's group is ended as above and the result carries an `ESPAWNER` spawn error.
 */

const DEFAULT_KILL_GRACE_MS = 2_000;

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ProcessOptions {
  /** argv[0] is the executable; a bare name is looked up on the PATH of the merged environment. */
  argv: readonly string[];
  /** For the observation (`runtime:<name>` origins). */
  runtimeName: string;
  /** Merged over process.env. */
  env?: Record<string, string> | undefined;
  cwd?: string | null | undefined;
  /** null or undefined: no timeout. */
  timeoutMs?: number | null | undefined;
  killGraceMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** When aborted, the group gets SIGKILL at once, without the SIGTERM grace; the child counts as cancelled. */
  killNow?: AbortSignal | undefined;
  /** Per stream. */
  maxCaptureBytes?: number | undefined;
  /** Called once, as soon as the process runs: the group id (= pid) and start time to journal. */
  onStarted?: ((started: ProcessStarted) => void) | undefined;
  /** Sees every chunk as it arrives (tests waiting for a child to be ready); raw, not redacted. */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
  /**
   * The secrets to take out of what the child printed, as it arrives (before anything is cut
   * from it); default: the secrets of this process's environment, which the child inherits.
   */
  redactor?: Redactor | undefined;
}

interface ProcessStarted {
  /** The child leads its own group, so this is also the group id. */
  pid: number;
  /** Field 22 of /proc/<pid>/stat; null where /proc is not available. */
  startTime: string | null;
}

export interface ProcessResult extends RuntimeObservation {
  /** The abort signal stopped the child (or fired before it could start). */
  cancelled: boolean;
  pid: number | null;
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  /** The pipes stayed open after the group was gone: a process outside it (setsid) still held them. */
  outputHeldOpen: boolean;
  /** Members of the group still running after SIGKILL and a grace period (uninterruptible sleep). */
  groupSurvivors: number[];
}

type SpawnError = NonNullable<RuntimeObservation['spawnError']>;

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}

/** Says what went wrong in operator terms, naming the command (the raw `spawn x ENOENT` does not help). */
function describeSpawnError(command: string, error: unknown): SpawnError {
  const code = errnoCode(error);
  const message = (error as { message?: unknown } | null)?.message;
  const raw = typeof message === 'string' ? message : String(error);
  switch (code) {
    case 'ENOENT':
      // A path that exists but fails with ENOENT is a script whose interpreter (#!) is missing.
      if (command.includes('/') && pathExists(command)) {
        return { code, message: `"${command}" exists but could not be executed; is its interpreter installed? (ENOENT)` };
      }
      return { code, message: `command not found: "${command}" (ENOENT)` };
    case 'EACCES':
      return { code, message: `permission denied: "${command}" is not executable (EACCES)` };
    case 'E2BIG':
      // Linux caps each argument and environment string at 128 KiB: a prompt holding a large
      // earlier output can exceed it.
      return { code, message: `argument list too long for "${command}": one argument or environment value exceeds the system limit (E2BIG)` };
    case 'ERR_INVALID_ARG_VALUE':
      // Node's own message quotes the whole value (a prompt of any size): say what is wrong instead.
      if (/null bytes/.test(raw))
        return { code: 'EINVAL', message: `an argument of "${command}" contains a NUL character, which no process argument can carry (EINVAL)` };
      return { code, message: `could not execute "${command}": an argument or environment value is invalid (${code})` };
    default:
      return { code, message: `could not execute "${command}": ${raw} (${code})` };
  }
}

function pathExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Node reports a missing cwd as ENOENT of the command, which would blame the wrong thing. */
function checkCwd(cwd: string): SpawnError | null {
  try {
    if (statSync(cwd).isDirectory()) return null;
    return { code: 'ENOTDIR', message: `working directory is not a directory: "${cwd}" (ENOTDIR)` };
  } catch (error) {
    return { code: errnoCode(error), message: `working directory not found: "${cwd}" (${errnoCode(error)})` };
  }
}

/** What happened to the process, before its output is attached. */
interface Outcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  spawnError?: SpawnError | undefined;
  pid: number | null;
  outputHeldOpen?: boolean;
  groupSurvivors?: number[];
}

const LOST_SPAWNER: SpawnError = {
  code: 'ESPAWNER',
  message: "Hivewatch's spawner process ended while the agent ran: the agent was stopped and its exit status is unknown",
};

/** Why the process cannot be started at all, checked before anything runs; null when it can. */
function refusal(options: ProcessOptions): Outcome | null {
  const notStarted = { exitCode: null, signal: null, timedOut: false, cancelled: false, pid: null };
  const command = options.argv[0];
  if (command === undefined || command === '') return { ...notStarted, spawnError: { code: 'EINVAL', message: 'empty command line' } };
  if (options.signal?.aborted) return { ...notStarted, cancelled: true };
  const cwdError = options.cwd ? checkCwd(options.cwd) : null;
  return cwdError ? { ...notStarted, spawnError: cwdError } : null;
}

export async function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const redactor = options.redactor ?? Redactor.forChild({ env: {} });
  const output = new OutputTails(options.maxCaptureBytes ?? DEFAULT_CAPTURE_BYTES, redactor, options.onOutput);
  const [command = '', ...args] = options.argv;
  const outcome =
    refusal(options) ??
    (await supervise(
      startAgentProcess({
        command,
        args,
        cwd: options.cwd ?? undefined,
        // Not the database's password: an agent has no use for Hivewatch's own database.
        env: { ...inheritedEnv(), ...options.env },
      }),
      command,
      options,
      output,
    ));
  return {
    runtimeName: options.runtimeName,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    spawnError: outcome.spawnError && { ...outcome.spawnError, message: redactor.text(outcome.spawnError.message) },
    ...output.finish(),
    durationMs: Math.round(performance.now() - started),
    timeoutMs: options.timeoutMs ?? undefined,
    cancelled: outcome.cancelled,
    pid: outcome.pid,
    outputHeldOpen: outcome.outputHeldOpen ?? false,
    groupSurvivors: outcome.groupSurvivors ?? [],
  };
}

/**
 * Watches one started process to its end: timeout, cancellation and forced kill as group
 * signals (process-kill.ts), settled once it exited, its pipes closed and its group is gone.
 */
function supervise(child: AgentProcess, command: string, options: ProcessOptions, output: OutputTails): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => new Supervision(child, options, resolve).watch(command, output));
}

/** One attempt's process from start to outcome: what has happened to it so far, and what ends it. */
class Supervision {
  private timedOut = false;
  private cancelled = false;
  private exit: { code: number | null; signal: string | null } | null = null;
  private pipesClosed = false;
  private outputHeldOpen = false;
  private settled = false;
  private lost = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private heldTimer: NodeJS.Timeout | undefined;
  private readonly grace: number;
  private readonly ending: GroupEnding;

  constructor(
    private readonly child: AgentProcess,
    private readonly options: ProcessOptions,
    private readonly resolve: (outcome: Outcome) => void,
  ) {
    this.grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.ending = new GroupEnding(this.grace, () => this.groupGone());
  }

  /** Follows the child's events and the caller's abort signals until the outcome is known. */
  watch(command: string, output: OutputTails): void {
    const child = this.child;
    child.on('output', (stream, chunk) => output.push(stream, chunk));
    child.on('spawn', (pid, startTime) => this.spawned(pid, startTime));
    child.on('error', (failure: StartFailure) => this.settle(describeSpawnError(command, failure)));
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      clearTimeout(this.timeoutTimer);
      this.ending.afterLeaderExit();
    });
    child.on('close', (code, signal) => {
      this.exit ??= { code, signal };
      this.pipesClosed = true;
      clearTimeout(this.heldTimer);
      this.finishIfDone();
    });
    child.on('lost', () => this.spawnerLost());

    this.options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (this.options.killNow?.aborted) this.onKillNow();
    else this.options.killNow?.addEventListener('abort', this.onKillNow, { once: true });
  }

  private spawned(pid: number, startTime: string | null): void {
    this.ending.started(pid);
    this.startTimeout();
    try {
      this.options.onStarted?.({ pid, startTime });
    } catch {
      // The observer journals; its failure surfaces at the run's next flush, not here.
    }
  }

  /** The spawner died: no more output or exit status will come; end whatever of the group runs. */
  private spawnerLost(): void {
    this.lost = true;
    this.exit = { code: null, signal: null };
    this.pipesClosed = true;
    clearTimeout(this.timeoutTimer);
    this.ending.afterLeaderExit();
  }

  /**
   * The timeout bounds the agent's run: it starts once the process runs, not when it was asked
   * for. Starting the spawner (a Node process ten nice steps down) took longer than a 300 ms
   * timeout on a loaded machine, and the SIGTERM then reached the agent before its first line.
   */
  private startTimeout(): void {
    const timeoutMs = this.options.timeoutMs ?? null;
    if (timeoutMs === null || this.timeoutTimer !== undefined || this.settled) return;
    // setTimeout fires after 1 ms for delays beyond 2^31-1 ms (~24.8 days): clamp, never shorten.
    this.timeoutTimer = setTimeout(
      () => {
        if (this.exit !== null || this.cancelled) return;
        this.timedOut = true;
        this.ending.terminate();
      },
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
  }

  private readonly onAbort = (): void => {
    if (this.exit !== null || this.settled) return;
    this.cancelled = true;
    this.ending.terminate();
  };

  private readonly onKillNow = (): void => {
    if (this.settled || this.ending.isGone) return;
    if (this.exit === null) this.cancelled = true;
    this.ending.kill();
  };

  private groupGone(): void {
    if (!this.pipesClosed) {
      // Nothing in the group can write any more; what still holds the pipes is outside it.
      this.heldTimer = setTimeout(() => {
        this.outputHeldOpen = true;
        this.child.releaseOutput();
        this.pipesClosed = true;
        this.finishIfDone();
      }, this.grace);
    }
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.exit !== null && this.pipesClosed && this.ending.isGone) this.settle();
  }

  private settle(spawnError?: SpawnError): void {
    if (this.settled) return;
    this.settled = true;
    this.ending.dispose();
    for (const timer of [this.timeoutTimer, this.heldTimer]) clearTimeout(timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.options.killNow?.removeEventListener('abort', this.onKillNow);
    const { exit, timedOut, cancelled, outputHeldOpen } = this;
    this.resolve({
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      timedOut,
      cancelled,
      pid: this.child.pid ?? null,
      outputHeldOpen,
      groupSurvivors: this.ending.survivors,
      spawnError: spawnError ?? (this.lost ? LOST_SPAWNER : undefined),
    });
  }
}
