import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { runProcess, type ProcessResult } from '../runtimes/process/process.js';
import type { Redactor } from '../runtimes/secrets/secrets.js';

/**
 * Shell commands run in a worktree: `setup:` (once per new worktree) and the `verify:` checks
 * (in order, after an attempt that succeeded and passed its scope). Each runs in its own process
 * group with a timeout; a cancel stops it like an attempt (SIGTERM, then SIGKILL).
 */

/** What a check left on the record: its outcome and the end of its output. */
export interface CommandRecord {
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The last lines of stdout and stderr together (bounded). */
  outputTail: string;
}

const OUTPUT_TAIL_CHARS = 4_000;

export function outputTail(stdout: string, stderr: string, limit = OUTPUT_TAIL_CHARS): string {
  const joined = [stdout.trimEnd(), stderr.trimEnd()].filter(Boolean).join('\n');
  return joined.length <= limit ? joined : `…${joined.slice(joined.length - limit + 1)}`;
}

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  killGraceMs?: number | undefined;
  env?: Record<string, string> | undefined;
  /** The secrets its output may hold, taken out before its tail is cut; default: Hivewatch's own. */
  redactor?: Redactor | undefined;
}

export async function runShell(command: string, options: ShellOptions): Promise<CommandRecord> {
  const result: ProcessResult = await runProcess({
    argv: ['/bin/sh', '-c', command],
    runtimeName: 'check',
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs,
    signal: options.signal,
    maxCaptureBytes: 256 * 1024,
    redactor: options.redactor,
  });
  return {
    ok: !result.cancelled && !result.timedOut && result.exitCode === 0 && !result.spawnError,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    cancelled: result.cancelled,
    durationMs: result.durationMs,
    outputTail: outputTail(result.stdout, result.stderr || (result.spawnError?.message ?? '')),
  };
}

/**
 * A failed check as an error of the taxonomy (hivemind-error-model.md §3.5): a non-zero exit is
 * VERIFICATION_CHECK_FAILED (recoverable: the agent may correct its work), past the timeout
 * VERIFICATION_TIMEOUT, killed by a signal VERIFICATION_CRASH. Origin `check:<name>`.
 */
export function checkError(name: string, command: string, record: CommandRecord, timeoutMs: number): HivewatchError {
  const origin = `check:${name}`;
  const context = { check: name, command, exitCode: record.exitCode, signal: record.signal, outputTail: record.outputTail };
  if (record.timedOut) {
    return new HivewatchError('VERIFICATION_TIMEOUT', {
      message: `check ${name} (${command}) ran past its ${Math.round(timeoutMs / 1000)} s timeout`,
      origin,
      context: { ...context, timeoutMs },
    });
  }
  if (record.signal !== null) {
    return new HivewatchError('VERIFICATION_CRASH', { message: `check ${name} (${command}) was killed by ${record.signal}`, origin, context });
  }
  return new HivewatchError('VERIFICATION_CHECK_FAILED', {
    message: `check ${name} (${command}) failed with exit code ${String(record.exitCode)}`,
    origin,
    context,
  });
}
