import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { RuntimeObservation } from '../base/errors/classify.js';
import { groupAlive, groupMembers, processStartTime } from './process-group.js';
import { inheritedEnv, Redactor } from './secrets.js';
import { DEFAULT_CAPTURE_BYTES, TailBuffer } from './tail-buffer.js';

/**
 * Runs one child process for one attempt and reports what happened, never throwing: a missing
 * executable, a timeout and a cancellation are all observations for the caller to classify.
 *
 * - argv is passed as is (no shell): the caller decides whether to go through `/bin/sh -c`.
 * - The child leads its own process group (`detached: true`), so a kill reaches whatever it
 *   spawned (an agent CLI starting tools, `sh -c` starting a pipeline) via `kill(-pid, sig)`.
 * - Timeout and abort both stop it the same way: SIGTERM to the group, then SIGKILL after a
 *   grace period, so a child that ignores SIGTERM still goes away (DESIGN rule 11). `killNow`
 *   skips (or cuts short) the grace: SIGKILL at once (a forced cancel, DESIGN rule 18).
 * - When the child exits by itself (success or failure), whatever it left in its group
 *   (`sleep 300 &`) is ended the same way: the attempt settles once its group is gone and its
 *   pipes are closed, so nothing of an attempt outlives it. Output is drained until the pipes
 *   close, with no fixed wait; only a process outside the group (a `setsid` grandchild, which
 *   no group signal reaches) can hold them open, and then reading stops one grace period after
 *   the group is gone and the result says so (`outputHeldOpen`).
 * - stdout and stderr keep only their last `maxCaptureBytes` each (TailBuffer): constant
 *   memory however much the child writes.
 */

const DEFAULT_KILL_GRACE_MS = 2_000;

/** How often to look whether an ended attempt's group is gone (no event tells of a grandchild's death). */
const GROUP_POLL_MS = 20;

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
  /** Called once, synchronously after the spawn: the group id (= pid) and start time to journal. */
  onStarted?: ((started: ProcessStarted) => void) | undefined;
  /** Sees every chunk as it arrives (tests waiting for a child to be ready); raw, not redacted. */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
  /**
   * The secrets to take out of what the child printed before anyone reads it (issue #25 part
   * 5); default: the secret-named variables of this process's environment, which it inherits.
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
  const raw = error instanceof Error ? error.message : String(error);
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
      if (/null bytes/.test(raw)) return { code: 'EINVAL', message: `an argument of "${command}" contains a NUL character, which no process argument can carry (EINVAL)` };
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

/** Signals the child's whole process group; falls back to the child alone where groups are unavailable. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    // ESRCH: the group is already gone. Anything else (no group support): try the child itself.
    if (errnoCode(error) !== 'ESRCH') child.kill(signal);
  }
}

export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const capture = options.maxCaptureBytes ?? DEFAULT_CAPTURE_BYTES;
  const stdout = new TailBuffer(capture);
  const stderr = new TailBuffer(capture);
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const timeoutMs = options.timeoutMs ?? null;
  const redactor = options.redactor ?? Redactor.forChild({});

  const result = (fields: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    cancelled: boolean;
    spawnError?: SpawnError;
    pid: number | null;
    outputHeldOpen?: boolean;
    groupSurvivors?: number[];
  }): ProcessResult => ({
    runtimeName: options.runtimeName,
    exitCode: fields.exitCode,
    signal: fields.signal,
    timedOut: fields.timedOut,
    spawnError: fields.spawnError && { ...fields.spawnError, message: redactor.text(fields.spawnError.message) },
    stdout: redactor.text(stdout.toString()),
    stderr: redactor.text(stderr.toString()),
    durationMs: Math.round(performance.now() - started),
    timeoutMs: timeoutMs ?? undefined,
    cancelled: fields.cancelled,
    pid: fields.pid,
    stdoutDroppedBytes: stdout.droppedBytes,
    stderrDroppedBytes: stderr.droppedBytes,
    outputHeldOpen: fields.outputHeldOpen ?? false,
    groupSurvivors: fields.groupSurvivors ?? [],
  });
  const notStarted = (spawnError: SpawnError | undefined, cancelled = false): Promise<ProcessResult> =>
    Promise.resolve(result({ exitCode: null, signal: null, timedOut: false, cancelled, pid: null, ...(spawnError ? { spawnError } : {}) }));

  const command = options.argv[0];
  if (command === undefined || command === '') return notStarted({ code: 'EINVAL', message: 'empty command line' });
  if (options.signal?.aborted) return notStarted(undefined, true);
  if (options.cwd) {
    const cwdError = checkCwd(options.cwd);
    if (cwdError) return notStarted(cwdError);
  }

  let child: ChildProcess;
  try {
    child = spawn(command, options.argv.slice(1), {
      cwd: options.cwd ?? undefined,
      // Not the database's password: an agent has no use for Hivewatch's own database.
      env: { ...inheritedEnv(), ...options.env },
      // stdin is /dev/null: an agent CLI that reads stdin when it is not a TTY sees EOF, not a hang.
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    // Synchronous failures: invalid arguments such as a NUL byte in argv.
    return notStarted(describeSpawnError(command, error));
  }

  if (child.pid !== undefined && options.onStarted) {
    try {
      options.onStarted({ pid: child.pid, startTime: processStartTime(child.pid) });
    } catch {
      // The observer journals; its failure surfaces at the run's next flush, not here.
    }
  }

  return new Promise<ProcessResult>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let terminating = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let pipesClosed = false;
    let groupGone = false;
    let outputHeldOpen = false;
    let groupSurvivors: number[] = [];
    let settled = false;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let pollTimer: NodeJS.Timeout | undefined;
    let heldTimer: NodeJS.Timeout | undefined;
    let giveUpTimer: NodeJS.Timeout | undefined;

    const observe = (stream: 'stdout' | 'stderr', buffer: TailBuffer) => (chunk: Buffer) => {
      buffer.push(chunk);
      if (options.onOutput) {
        try {
          options.onOutput(stream, chunk);
        } catch {
          // An observer must not be able to break the capture or crash the host.
        }
      }
    };
    child.stdout?.on('data', observe('stdout', stdout));
    child.stderr?.on('data', observe('stderr', stderr));

    const kill = (): void => {
      if (giveUpTimer !== undefined) return;
      clearTimeout(killTimer);
      signalGroup(child, 'SIGKILL');
      // A member in uninterruptible sleep can outlive even SIGKILL for a while: stop waiting.
      giveUpTimer = setTimeout(() => {
        groupSurvivors = child.pid === undefined ? [] : (groupMembers(child.pid) ?? []);
        onGroupGone();
      }, grace);
    };

    const terminate = (): void => {
      if (terminating) return;
      terminating = true;
      signalGroup(child, 'SIGTERM');
      killTimer = setTimeout(kill, grace);
    };

    const onAbort = (): void => {
      if (exit !== null || settled) return;
      cancelled = true;
      terminate();
    };

    const onKillNow = (): void => {
      if (settled || groupGone) return;
      if (exit === null) cancelled = true;
      terminating = true;
      kill();
    };

    const settle = (spawnError?: SpawnError): void => {
      if (settled) return;
      settled = true;
      for (const timer of [timeoutTimer, killTimer, heldTimer, giveUpTimer]) clearTimeout(timer);
      clearInterval(pollTimer);
      options.signal?.removeEventListener('abort', onAbort);
      options.killNow?.removeEventListener('abort', onKillNow);
      resolve(
        result({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          timedOut,
          cancelled,
          pid: child.pid ?? null,
          outputHeldOpen,
          groupSurvivors,
          ...(spawnError ? { spawnError } : {}),
        }),
      );
    };

    const finishIfDone = (): void => {
      if (exit !== null && pipesClosed && groupGone) settle();
    };

    function onGroupGone(): void {
      if (groupGone) return;
      groupGone = true;
      clearInterval(pollTimer);
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      if (!pipesClosed) {
        // Nothing in the group can write any more; what still holds the pipes is outside it.
        heldTimer = setTimeout(() => {
          outputHeldOpen = true;
          child.stdout?.destroy();
          child.stderr?.destroy();
          pipesClosed = true;
          finishIfDone();
        }, grace);
      }
      finishIfDone();
    }

    /** The child has exited: end what it left in its group, then wait for the group to be gone. */
    const endGroup = (): void => {
      const pgid = child.pid;
      if (pgid === undefined || !groupAlive(pgid)) {
        onGroupGone();
        return;
      }
      terminate();
      pollTimer = setInterval(() => {
        if (!groupAlive(pgid)) onGroupGone();
      }, GROUP_POLL_MS);
    };

    child.on('error', (error) => {
      // Emitted for a failed spawn (no pid) and, rarely, a failed kill; only the first matters.
      if (child.pid === undefined) {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle(describeSpawnError(command, error));
      }
    });

    child.on('exit', (code, signal) => {
      exit = { code, signal };
      clearTimeout(timeoutTimer);
      endGroup();
    });

    child.on('close', () => {
      if (exit === null) exit = { code: child.exitCode, signal: child.signalCode };
      pipesClosed = true;
      clearTimeout(heldTimer);
      finishIfDone();
    });

    if (timeoutMs !== null) {
      // setTimeout fires after 1 ms for delays beyond 2^31-1 ms (~24.8 days): clamp, never shorten.
      timeoutTimer = setTimeout(() => {
        if (exit !== null || cancelled) return;
        timedOut = true;
        terminate();
      }, Math.min(timeoutMs, MAX_TIMER_MS));
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.killNow?.aborted) onKillNow();
    else options.killNow?.addEventListener('abort', onKillNow, { once: true });
  });
}
