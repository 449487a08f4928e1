import { HivewatchError } from './hivewatch-error.js';
import { firstLine } from './text.js';
import { parseUsageLimit, type ResetClock } from './usage-limit.js';

/**
 * The one classification of a model provider's failure, whichever way it
 * reaches Hivewatch: a preset reading a CLI's result (Claude Code's `api_error_status` and
 * result text, Codex's `turn.failed` message, either one's stderr) and the OTLP ingest reading
 * the CLI's telemetry (`api_error`, `api_request` with a failed status, an `sse_event` error).
 * The same failure gets the same code on both paths (docs/presets.md "One classifier", tested
 * against the recorded CLI runs in provider-failure.fixtures.test.ts):
 *
 * - a subscription usage limit, 429, 529, "overloaded", "rate limit" → RUNTIME_RATE_LIMIT, with
 *   `context.resetAt` when the failure says when it clears (a reset time, a retry-after);
 * - a request larger than the model's context (`context_length_exceeded`, "prompt is too long")
 *   → USER_INVALID_CONFIG (retrying the same request cannot help);
 * - outside a trusted directory / not a git repository → USER_INVALID_CONFIG naming the flag;
 * - 401, 403, "not allowed", a refused or missing API key → USER_INVALID_CONFIG (never retried);
 * - 408, 504, "timed out", an idle stream → RUNTIME_TIMEOUT;
 * - another 5xx, an internal server error, "high demand", a failed stream, a provider that cannot
 *   be reached → RUNTIME_PROVIDER_ERROR;
 * - 400, 404, 413, 422 → USER_INVALID_CONFIG (the request the configuration made);
 * - anything else → RUNTIME_UNKNOWN.
 *
 * The words include the error types providers and SDKs name failures by (an OpenTelemetry span's
 * `error.type`, an exception's type): OpenAI's codes and its SDK's classes (`rate_limit_exceeded`,
 * `RateLimitError`, `invalid_api_key`, `AuthenticationError`, `PermissionDeniedError`,
 * `InternalServerError`, `BadRequestError`, `NotFoundError`, `APIConnectionError`), Anthropic's
 * error types (`rate_limit_error`, `overloaded_error`, `authentication_error`, `permission_error`,
 * `not_found_error`, `request_too_large`, `invalid_request_error`, `api_error`) and the Vercel AI
 * SDK's (`AI_LoadAPIKeyError`, `AI_RetryError` quoting its last error).
 */

export interface ProviderFailure {
  /** `claude-code`, `codex-cli`, or another runtime's name. */
  runtime: string;
  /** The HTTP status the CLI reported, or null (then one its message names is used). */
  status: number | null;
  message: string;
  context?: Record<string, unknown>;
  /** The provider's Retry-After in ms, when the CLI reports it. */
  retryAfterMs?: number | null;
  /** The time the failure was seen: reset times and retry-afters are read against it. */
  clock?: ResetClock;
}

// Codex: "last status: 429 Too Many Requests", "unexpected status 401 Unauthorized"; Claude Code:
// "API Error: 500 Internal server error", "Request rejected (429)", "API Error: 403 …".
const STATUS_IN_TEXT = /(?:\bstatus(?:\s*code)?[\s:=]*|\bAPI Error:\s*|\brejected\s*\(|\bHTTP\s*)([1-5]\d\d)\b/i;
const RATE_LIMITED = /overloaded|rate[ _-]?limit|too many requests|quota exceeded|insufficient_quota|exceeded your current quota/i;
const TOO_LARGE = /context_length_exceeded|maximum context length|context window|prompt is too long|request_too_large|string_above_max_length/i;
const UNTRUSTED_DIRECTORY = /not inside a trusted directory|skip-git-repo-check|not a git repository/i;
const REFUSED = /not allowed|forbidden|permission_error|permission[ _]?denied|access denied/i;
const NOT_SIGNED_IN =
  /invalid[ _]api[ _]key|please run \/login|not logged in|authentication_?error|authentication_failed|invalid x-api-key|incorrect api key|oauth token has expired|unauthori[sz]ed|api key is missing|LoadAPIKeyError/i;
const TIMED_OUT = /timed?[ _-]?out|timeout|deadline exceeded/i;
const PROVIDER_FAILED =
  /internal[ _]?server[ _]?error|server[ _]error|\bapi_error\b|high demand|bad gateway|service[ _]?unavailable|model failed to generate|response\.failed|APIConnectionError|cannot connect to api|ECONNREFUSED|ECONNRESET/i;
const REJECTED = /BadRequestError|NotFoundError|UnprocessableEntityError|invalid_request_error|not_found_error|model_not_found/i;
const RETRY_AFTER = /retry[ -]after[\s:=]*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)?\b/i;

/** The status a failure carries: the one reported, else the first one its message names. */
export function statusOfFailure(status: number | null, message: string): number | null {
  if (status !== null) return status;
  const named = STATUS_IN_TEXT.exec(message);
  return named ? Number(named[1]) : null;
}

/** When a rate limit clears (epoch ms): a usage limit's reset time, else now + the retry-after. */
function resetAtOf(f: ProviderFailure): number | null {
  const usage = parseUsageLimit(f.message, f.clock);
  if (usage?.resetAt != null) return usage.resetAt;
  const now = f.clock?.now;
  if (now === undefined) return null;
  if (f.retryAfterMs != null && Number.isFinite(f.retryAfterMs) && f.retryAfterMs >= 0) return now + f.retryAfterMs;
  const stated = RETRY_AFTER.exec(f.message);
  if (!stated) return null;
  const value = Number(stated[1]);
  return now + (stated[2]?.toLowerCase() === 'ms' ? value : value * 1_000);
}

/** The structured error of a provider failure (see the module comment for the table). */
export function classifyProviderFailure(f: ProviderFailure): HivewatchError {
  const { runtime, message } = f;
  const origin = `runtime:${runtime}`;
  const s = statusOfFailure(f.status, message);
  const http = s === null ? '' : ` (HTTP ${s})`;
  const detail = firstLine(message) || 'no details given';
  const context = { ...f.context, statusCode: s };
  const usage = parseUsageLimit(message, f.clock);
  const usageLimit = usage !== null;
  if (usageLimit || s === 429 || s === 529 || RATE_LIMITED.test(message)) {
    const resetAt = resetAtOf(f);
    const what = usageLimit ? 'reached its usage limit' : 'the API is rate limited or overloaded';
    return new HivewatchError('RUNTIME_RATE_LIMIT', {
      origin,
      message: `${runtime}: ${what}${http}: ${detail}`,
      context: { ...context, ...(usage ? { usageLimit: true, resetReported: usage.reported } : {}), ...(resetAt === null ? {} : { resetAt }) },
    });
  }
  if (TOO_LARGE.test(message)) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      origin: 'user',
      message: `${runtime}: the request is larger than the model's context window${http}: ${detail}`,
      recoveryHint: 'Shorten the prompt or the conversation, or use a model with a larger context window: the same request fails again',
      context: { ...context, runtime },
    });
  }
  if (UNTRUSTED_DIRECTORY.test(message)) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      origin: 'user',
      message: `${runtime}: the working directory is not a trusted git repository: ${detail}`,
      recoveryHint: 'Run the agent inside a git repository, or pass --skip-git-repo-check (the codex-cli preset does when the run has no repository)',
      context: { ...context, runtime },
    });
  }
  if (s === 401 || s === 403 || NOT_SIGNED_IN.test(message) || REFUSED.test(message)) {
    const signIn = s === 401 || (s !== 403 && NOT_SIGNED_IN.test(message));
    return new HivewatchError('USER_INVALID_CONFIG', {
      origin: 'user',
      message: signIn
        ? `${runtime} is not signed in or its API key was refused${http}: ${detail}`
        : `${runtime}: the provider refused the request${http}: ${detail}`,
      recoveryHint: signIn
        ? `Sign in to ${runtime} (or set its API key) on this machine, then retry`
        : "Check that the account may use the agent's model: the provider refuses it",
      context: { ...context, runtime },
    });
  }
  if (s === 408 || s === 504 || TIMED_OUT.test(message)) {
    return new HivewatchError('RUNTIME_TIMEOUT', { origin, message: `${runtime}: the API request timed out${http}: ${detail}`, context });
  }
  if ((s !== null && s >= 500 && s <= 599) || PROVIDER_FAILED.test(message)) {
    return new HivewatchError('RUNTIME_PROVIDER_ERROR', { origin, message: `${runtime}: the provider's API failed${http}: ${detail}`, context });
  }
  if (s === 400 || s === 404 || s === 413 || s === 422 || (s === null && REJECTED.test(message))) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      origin: 'user',
      recoveryHint: "Check the agent's model and prompt size",
      message: `${runtime}: the API rejected the request${http}: ${detail}`,
      context: { ...context, runtime },
    });
  }
  return new HivewatchError('RUNTIME_UNKNOWN', { origin, message: `${runtime}: the API request failed${http}: ${detail}`, context });
}

/** Whether the classifier knows the failure's cause (anything but RUNTIME_UNKNOWN). */
export function knownProviderFailure(f: ProviderFailure): HivewatchError | null {
  const error = classifyProviderFailure(f);
  return error.code === 'RUNTIME_UNKNOWN' ? null : error;
}
