import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { RuntimeObservation } from '../errors/classify.js';
import { DEFAULT_CAPTURE_BYTES, TailBuffer } from './tail-buffer.js';

/**
 * Runs one child process for one attempt and reports what happened, never throwing: a missing
 * executable, a timeout and a cancellation are all observations for the caller to classify.
 *
 * - argv is passed as is (no shell): the caller decides whether to go through `/bin/sh -c`.
 * - The child leads its own process group (`detached: true`), so a kill reaches whatever it
 *   spawned (an agent CLI starting tools, `sh -c` starting a pipeline) via `kill(-pid, sig)`.
 * - Timeout and abort both stop it the same way: SIGTERM to the group, then SIGKILL after a
 *   grace period, so a child that ignores SIGTERM still goes away (DESIGN rule 11).
 * - stdout and stderr keep only their last `maxCaptureBytes` each (TailBuffer): constant
 *   memory however much the child writes.
 */

export const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * After the child exits, how long to wait for its pipes to close. A grandchild that outlives it
 * (`sh -c "daemon &"`) keeps them open; the attempt is over when the child is, so we stop reading.
 */
const STDIO_DRAIN_MS = 1_000;

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
  /** Per stream. */
  maxCaptureBytes?: number | undefined;
  /** Sees every chunk as it arrives (live logs, tests waiting for a child to be ready). */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
}

export interface ProcessResult extends RuntimeObservation {
  /** The abort signal stopped the child (or fired before it could start). */
  cancelled: boolean;
  pid: number | null;
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
}

type SpawnError = NonNullable<RuntimeObservation['spawnError']>;

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}

/** Says what went wrong in operator terms, naming the command (the raw `spawn x ENOENT` does not help). */
export function describeSpawnError(command: string, error: unknown): SpawnError {
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

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const capture = options.maxCaptureBytes ?? DEFAULT_CAPTURE_BYTES;
  const stdout = new TailBuffer(capture);
  const stderr = new TailBuffer(capture);
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const timeoutMs = options.timeoutMs ?? null;

  const result = (fields: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    cancelled: boolean;
    spawnError?: SpawnError;
    pid: number | null;
  }): ProcessResult => ({
    runtimeName: options.runtimeName,
    exitCode: fields.exitCode,
    signal: fields.signal,
    timedOut: fields.timedOut,
    spawnError: fields.spawnError,
    stdout: stdout.toString(),
    stderr: stderr.toString(),
    durationMs: Math.round(performance.now() - started),
    timeoutMs: timeoutMs ?? undefined,
    cancelled: fields.cancelled,
    pid: fields.pid,
    stdoutDroppedBytes: stdout.droppedBytes,
    stderrDroppedBytes: stderr.droppedBytes,
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
      env: { ...process.env, ...options.env },
      // stdin is /dev/null: an agent CLI that reads stdin when it is not a TTY sees EOF, not a hang.
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    // Synchronous failures: invalid arguments such as a NUL byte in argv.
    return notStarted(describeSpawnError(command, error));
  }

  return new Promise<ProcessResult>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let terminating = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let settled = false;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

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

    const terminate = (): void => {
      if (terminating) return;
      terminating = true;
      signalGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child, 'SIGKILL'), grace);
    };

    const onAbort = (): void => {
      if (exit !== null || settled) return;
      cancelled = true;
      terminate();
    };

    const settle = (spawnError?: SpawnError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Keep the SIGKILL pending only while something of the group survives SIGTERM.
      if (killTimer !== undefined && (child.pid === undefined || !groupAlive(child.pid))) clearTimeout(killTimer);
      resolve(
        result({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          timedOut,
          cancelled,
          pid: child.pid ?? null,
          ...(spawnError ? { spawnError } : {}),
        }),
      );
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
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle();
      }, STDIO_DRAIN_MS);
    });

    child.on('close', () => {
      if (exit === null) exit = { code: child.exitCode, signal: child.signalCode };
      settle();
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
  });
}
