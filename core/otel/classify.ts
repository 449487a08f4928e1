import type { Correlation } from '../base/errors/envelope.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { firstLine, userErrorFromText } from '../runtimes/preset.js';

/**
 * The taxonomy of an API failure a CLI reported in its telemetry (docs/otel.md "Errors"):
 * 429, 529 and "overloaded" are rate limits; 401 / 403 the user's sign-in (as the presets
 * classify them); 408 / 504 and "timed out" timeouts; other 5xx the provider's server error
 * (RUNTIME_PROVIDER_ERROR: the command ran, the provider failed, unlike CONNECTION_FAILED);
 * 400 / 404 / 413 / 422 a request the user's configuration made invalid; anything else unknown.
 */

export interface ApiFailure {
  /** `claude-code`, `codex-cli`. */
  runtime: string;
  status: number | null;
  message: string;
  context: Record<string, unknown>;
  correlation: Partial<Correlation>;
  timestamp: number;
}

const RATE_LIMITED = /overloaded|rate.?limit|too many requests/i;
const TIMED_OUT = /timed?[ _-]?out|timeout|deadline exceeded/i;

export function apiFailureError(f: ApiFailure): HivewatchError {
  const origin = `runtime:${f.runtime}`;
  const detail = firstLine(f.message) || 'no details given';
  const http = f.status === null ? '' : ` (HTTP ${f.status})`;
  const base = { context: { ...f.context, statusCode: f.status }, correlation: f.correlation, timestamp: f.timestamp };
  const s = f.status;
  if (s === 429 || s === 529 || RATE_LIMITED.test(f.message)) {
    return new HivewatchError('RUNTIME_RATE_LIMIT', { ...base, origin, message: `${f.runtime}: the API is rate limited or overloaded${http}: ${detail}` });
  }
  if (s === 401 || s === 403) {
    const stated = userErrorFromText(f.runtime, `unauthorized${http}: ${detail}`, base.context);
    return (stated ?? new HivewatchError('USER_INVALID_CONFIG', { ...base, origin: 'user', message: `${f.runtime}: unauthorized${http}: ${detail}` })).withCorrelation(
      f.correlation,
      f.timestamp,
    );
  }
  if (s === 408 || s === 504 || TIMED_OUT.test(f.message)) {
    return new HivewatchError('RUNTIME_TIMEOUT', { ...base, origin, message: `${f.runtime}: the API request timed out${http}: ${detail}` });
  }
  if (s !== null && s >= 500 && s <= 599) {
    return new HivewatchError('RUNTIME_PROVIDER_ERROR', { ...base, origin, message: `${f.runtime}: the provider's API failed${http}: ${detail}` });
  }
  if (s === 400 || s === 404 || s === 413 || s === 422) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      ...base,
      origin: 'user',
      recoveryHint: "Check the agent's model and prompt size",
      message: `${f.runtime}: the API rejected the request${http}: ${detail}`,
    });
  }
  return new HivewatchError('RUNTIME_UNKNOWN', { ...base, origin, message: `${f.runtime}: the API request failed${http}: ${detail}` });
}

/** A tool the agent called reported failure: an agent error naming the tool. */
export function toolFailureError(runtime: string, tool: string, message: string, f: Omit<ApiFailure, 'runtime' | 'status' | 'message'>): HivewatchError {
  const detail = firstLine(message);
  return new HivewatchError('AGENT_TOOL_FAILED', {
    origin: `agent:${runtime}`,
    message: `${runtime}: tool ${tool} failed${detail ? `: ${detail}` : ''}`,
    context: { ...f.context, tool },
    correlation: f.correlation,
    timestamp: f.timestamp,
  });
}
