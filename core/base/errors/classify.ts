import { HivewatchError } from './hivewatch-error.js';
import { firstLine } from './text.js';

/** What a runtime observed of one attempt, before anyone decided whether it failed. */
export interface RuntimeObservation {
  /** `runtime:<name>` unless the caller knows better. */
  runtimeName: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The spawn itself failed (ENOENT, EACCES, ...). */
  spawnError?: { code: string; message: string } | undefined;
  stdout: string;
  stderr: string;
  durationMs: number;
  timeoutMs?: number | undefined;
}

// A bare "429" must come with HTTP-ish words so that "line 429" in a stack trace does not
// turn a crash into a 30–300 s rate-limit backoff.
const RATE_LIMIT_PATTERN =
  /\b(?:http|status|code|error)[\s:=]*(?:429|529)\b|\b429\b\s*[:-]?\s*(?:too many|\{)|rate[ _-]?limit|too many requests|\boverloaded\b|quota exceeded/i;

/** Whether a runtime's words say it was rate limited (HTTP 429/529, "rate limit exceeded", "overloaded"). */
function isRateLimitText(text: string): boolean {
  return RATE_LIMIT_PATTERN.test(text);
}
const TAIL = 400;

const tail = (text: string): string => (text.length > TAIL ? `…${text.slice(-TAIL)}` : text).trim();

/**
 * Turns what a runtime saw into a structured error, or null when the attempt did not fail.
 * Order matters: a spawn failure or timeout explains everything after it, and a rate-limit
 * message outranks the generic non-zero exit it comes with.
 */
export function classifyObservation(o: RuntimeObservation): HivewatchError | null {
  const origin = `runtime:${o.runtimeName}`;
  // No durations here: the envelope is journaled, and wall-clock time in it would break replay parity.
  const context = { exitCode: o.exitCode, signal: o.signal, stderrTail: tail(o.stderr) };
  if (o.spawnError) {
    return new HivewatchError('RUNTIME_CONNECTION_FAILED', {
      message: `could not start runtime ${o.runtimeName}: ${o.spawnError.message}`,
      origin,
      context: { ...context, spawnCode: o.spawnError.code },
    });
  }
  if (o.timedOut) {
    return new HivewatchError('RUNTIME_TIMEOUT', {
      message: `runtime ${o.runtimeName} exceeded its timeout${o.timeoutMs === undefined ? '' : ` of ${o.timeoutMs}ms`}`,
      origin,
      context,
    });
  }
  const failed = o.exitCode !== 0 || o.signal !== null;
  if (!failed) return null;
  if (isRateLimitText(o.stderr) || isRateLimitText(tail(o.stdout))) {
    return new HivewatchError('RUNTIME_RATE_LIMIT', {
      message: `runtime ${o.runtimeName} was rate limited: ${firstLine(o.stderr) || firstLine(o.stdout)}`,
      origin,
      context,
    });
  }
  if (o.exitCode === 124) {
    return new HivewatchError('RUNTIME_TIMEOUT', {
      message: `runtime ${o.runtimeName} reported a timeout (exit 124)`,
      origin,
      context,
    });
  }
  if (o.signal !== null) {
    return new HivewatchError('RUNTIME_CRASHED', {
      message: `runtime ${o.runtimeName} was killed by ${o.signal}`,
      origin,
      context,
    });
  }
  if (o.exitCode === 127) {
    return new HivewatchError('RUNTIME_CONNECTION_FAILED', {
      message: `runtime ${o.runtimeName}: command not found (exit 127)`,
      origin,
      context,
    });
  }
  const detail = firstLine(o.stderr);
  return new HivewatchError('RUNTIME_CRASHED', {
    message: `runtime ${o.runtimeName} exited with code ${o.exitCode}${detail ? `: ${detail}` : ''}`,
    origin,
    context,
  });
}

/** A runtime that got output it cannot parse reports it through here. */
export function malformedOutput(runtimeName: string, reason: string, stdout: string): HivewatchError {
  return new HivewatchError('RUNTIME_OUTPUT_MALFORMED', {
    message: `runtime ${runtimeName} produced output that could not be parsed: ${reason}`,
    origin: `runtime:${runtimeName}`,
    context: { stdoutTail: tail(stdout) },
  });
}
