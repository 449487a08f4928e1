import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import { rewriteRecorded } from './recorded-otlp.js';

/**
 * An external Claude Code session stopped by its usage limit, as OTLP/JSON payloads, for the
 * usage-limit tests (core/otel/session/usage-limit-session.test.ts on both engines,
 * e2e/usage-limit.test.ts in the window).
 *
 * Built from the recording `claude-code/usage-limit.json-out.otlp-json.default-retries` (Claude
 * Code 2.1.332 against the provider stub answering 429 `rate_limit_error` with the unified
 * rate-limit headers, docs/real-agents.md). As recorded, its telemetry names no usage limit and
 * no reset: `api_error {status_code: 429, error: "This request would exceed your account's rate
 * limit."}` (the reset is only in its stream-json result and the response headers). Changed here,
 * and nothing else: that error text, wherever the payloads carry it (the `api_error` record, the
 * `llm_request` span's `error` attribute and status message), becomes the line the same CLI
 * printed for the same failure in the same recording — its result, "You've hit your 5-hour limit
 * · resets 3:17am (UTC)" — i.e. the telemetry a CLI that reported its reset would send. The
 * preset's `hivewatch.*` resource attributes are dropped (a session `otel-env` pointed here), and
 * `shiftMs` moves every time in the payloads, the reset's wall-clock time in that text included:
 * it is read against the failure's time, so a session moved to "a minute ago" keeps its reset
 * about two hours ahead (as recorded: failure 01:17:43, "resets 3:17am") at any hour of the day.
 */

export const USAGE_LIMIT_RECORDING = 'usage-limit.json-out.otlp-json.default-retries';

export interface UsageLimitSession {
  /** The recorded exports in the order they arrived, rewritten as above (OTLP/JSON bodies). */
  payloads: { signal: 'logs' | 'traces'; body: Buffer }[];
  /** What the recorded telemetry said, and what it says now. */
  recordedError: string;
  reported: string;
  /** The session id (Claude Code's `session.id`). */
  sessionId: string;
  /** The recording's CLI version. */
  cliVersion: string;
  /** The api_error's time after the shift (epoch ms). */
  failedAt: number;
}

type Json = Record<string, unknown>;

/** The first result line of the recorded stream-json output: what the CLI printed for the failure. */
function printedResult(stdout: string): string {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const value = JSON.parse(line) as { type?: string; result?: unknown };
    if (value.type === 'result' && typeof value.result === 'string') return value.result;
  }
  throw new Error('the recording printed no result');
}

const DAY_MINUTES = 24 * 60;

/** The text with its "resets h:mmam (UTC)" moved by `shiftMs` (to the nearest minute, across midnight as the clock turns). */
export function movedReset(text: string, shiftMs: number): string {
  if (shiftMs === 0) return text;
  const at = /resets (\d{1,2}):(\d{2})(am|pm) \(UTC\)/.exec(text);
  if (!at) throw new Error(`no "resets h:mmam (UTC)" in the recorded result: ${text}`);
  const hour12 = Number(at[1]) % 12;
  const recorded = (hour12 + (at[3] === 'pm' ? 12 : 0)) * 60 + Number(at[2]);
  const minutes = (((recorded + Math.round(shiftMs / 60_000)) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
  const hour = Math.floor(minutes / 60);
  const printed = `${hour % 12 === 0 ? 12 : hour % 12}:${String(minutes % 60).padStart(2, '0')}${hour < 12 ? 'am' : 'pm'}`;
  return text.replace(at[0], `resets ${printed} (UTC)`);
}

/**
 * The session's payloads; `shiftMs` moves every time (0: as recorded). `linked`: keep the preset's
 * `hivewatch.*` resource attributes, as the recording has them (a session sent from inside a Hivewatch attempt).
 */
export function usageLimitSession(shiftMs = 0, linked = false): UsageLimitSession {
  const f = readFixture('claude-code', USAGE_LIMIT_RECORDING);
  if (!f) throw new Error(`no recording claude-code/${USAGE_LIMIT_RECORDING}`);
  const reported = movedReset(printedResult(f.stdout), shiftMs);
  const recordedError = "This request would exceed your account's rate limit.";
  let failedAt: number | null = null;
  let sessionId = '';
  const payloads = f.exports.map((e) => {
    const text = e.payload.toString('utf8').split(JSON.stringify(recordedError).slice(1, -1)).join(JSON.stringify(reported).slice(1, -1));
    const json = JSON.parse(text) as Json;
    rewriteRecorded(json, BigInt(shiftMs) * 1_000_000n, linked);
    const body = Buffer.from(JSON.stringify(json));
    const apiError = findApiError(json);
    if (apiError) ({ failedAt, sessionId } = apiError);
    return { signal: e.signal as 'logs' | 'traces', body };
  });
  if (failedAt === null) throw new Error('the recording has no api_error');
  return { payloads, recordedError, reported, sessionId, cliVersion: f.run.cliVersion, failedAt };
}

/**
 * The recorded Claude Code session `text.json-out.otlp-json.default-retries` (a prompt answered)
 * sent again as the session `sessionId` with its first record at `at` (epoch ms): the telemetry of
 * the stopped session's user resuming it (`claude --resume` keeps the session id). Only the
 * session id, the times and the preset's resource attributes are changed.
 */
export function resumedTelemetry(sessionId: string, at: number): { signal: 'logs' | 'traces'; body: Buffer }[] {
  const f = readFixture('claude-code', 'text.json-out.otlp-json.default-retries');
  if (!f) throw new Error('no recording claude-code/text.json-out.otlp-json.default-retries');
  const recordedId = /"session_id":"([^"]+)"/.exec(f.stdout)?.[1];
  if (!recordedId) throw new Error('the recording printed no session id');
  const first = Math.min(...f.exports.map((e) => Number(/"timeUnixNano":"(\d+)"/.exec(e.payload.toString('utf8'))?.[1] ?? Infinity) / 1e6));
  return f.exports.map((e) => {
    const json = JSON.parse(e.payload.toString('utf8').split(recordedId).join(sessionId)) as Json;
    rewriteRecorded(json, BigInt(Math.round(at - first)) * 1_000_000n);
    return { signal: e.signal as 'logs' | 'traces', body: Buffer.from(JSON.stringify(json)) };
  });
}

/** The api_error record's time and session id. */
function findApiError(json: Json): { failedAt: number; sessionId: string } | null {
  const logs = (json.resourceLogs ?? []) as {
    scopeLogs: { logRecords: { timeUnixNano: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[];
  }[];
  for (const record of logs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords))) {
    const attribute = (key: string): string | undefined => record.attributes.find((a) => a.key === key)?.value.stringValue;
    if (attribute('event.name') === 'api_error')
      return { failedAt: Number(BigInt(record.timeUnixNano) / 1_000_000n), sessionId: attribute('session.id') ?? '' };
  }
  return null;
}
