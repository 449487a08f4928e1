import { classifyObservation, malformedOutput, type RuntimeObservation } from '../../base/errors/classify.js';
import type { AgentSpec } from '../../flow/plan/plan.js';
import { claudeCodeEnv, claudeCodeExportsAsSet, type TelemetryTarget } from './telemetry-env.js';
import { attemptEnv, runAttemptProcess, type ProcessRuntimeOptions } from '../command.js';
import { isRecord, parseJson } from '../../base/json.js';
import { InnerRetries, permissionDenied, positional, presetArgv, reportedError, statedError, type DeniedTool, type PresetRetryOwnership } from './preset.js';
import { presetClock, type PresetClockOptions, type ReadContext } from './preset-clock.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from '../runtime.js';
import { claudeResultUsage, withUsage } from './preset-usage.js';
import type { TokenUsage } from '../../base/usage.js';

/**
 * The `claude-code` preset: `claude -p --output-format json [--model M] -- <prompt>`.
 *
 * With `--output-format json` Claude Code prints one JSON object when the run ends:
 * `{"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution",
 *   "is_error":bool,"result":"<final text>","session_id":..,"total_cost_usd":..,"num_turns":..,...}`.
 * Its `result` is the session output; `is_error` (or an error subtype) is a failure the tool
 * reported itself, which explains more than its exit code. The Agent SDK's `SDKResultMessage`
 * type documents the rest read here: `api_error_status` (HTTP status of the API error that ended
 * the run), `errors` (error subtypes' messages) and `permission_denials` ({tool_name,
 * tool_use_id, tool_input}[]): see docs/presets.md.
 */

const CLAUDE_CODE = 'claude-code';

/** Claude Code retries failed API requests itself (10 times by default) unless told not to. */
export const CLAUDE_CODE_RETRIES: PresetRetryOwnership = {
  innerRetries: InnerRetries.disabled,
  how: 'CLAUDE_CODE_MAX_RETRIES=0 in the environment (an agent env: entry may override it)',
};

/** The environment the preset adds: the engine is the only layer that retries (rule 3). */
export const CLAUDE_CODE_ENV: Readonly<Record<string, string>> = { CLAUDE_CODE_MAX_RETRIES: '0' };

function claudeCodeArgs(prompt: string, model: string | null): string[] {
  return ['-p', '--output-format', 'json', ...(model ? ['--model', model] : []), ...positional(prompt)];
}

export function claudeCodeArgv(agent: AgentSpec, prompt: string): string[] | AttemptResult {
  return presetArgv(agent, prompt, ['claude'], claudeCodeArgs(prompt, agent.model));
}

export interface ClaudeCodeResult {
  result: string | null;
  isError: boolean;
  subtype: string | null;
  sessionId: string | null;
  costUsd: number | null;
  numTurns: number | null;
  /** HTTP status of the API error that ended the run, when there was one. */
  apiErrorStatus: number | null;
  /** Messages of an error subtype (`errors: string[]`). */
  errors: string[];
  permissionDenials: DeniedTool[];
  /** Tokens and `total_cost_usd` (preset-usage.ts); null when the result carries neither. */
  usage: TokenUsage | null;
}

function deniedTools(value: unknown): DeniedTool[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((d): DeniedTool[] => {
    if (!isRecord(d) || typeof d.tool_name !== 'string') return [];
    const input = isRecord(d.tool_input) ? d.tool_input : {};
    const detail = [input.command, input.file_path, input.path, input.url].find((v): v is string => typeof v === 'string') ?? null;
    return [{ tool: d.tool_name, detail, ...(typeof d.tool_use_id === 'string' ? { toolUseId: d.tool_use_id } : {}) }];
  });
}

/**
 * Parses the final result object. Accepts the whole stdout or, when something else was printed
 * first (a warning, or `stream-json` lines), its last line.
 */
export function parseClaudeCodeOutput(stdout: string): { ok: true; value: ClaudeCodeResult } | { ok: false; reason: string } {
  const text = stdout.trim();
  if (text === '') return { ok: false, reason: 'no output' };
  let parsed = parseJson(text);
  if (!parsed.ok) {
    const lastLine = text.split('\n').pop()?.trim() ?? '';
    const retry = lastLine !== text ? parseJson(lastLine) : parsed;
    if (!retry.ok) return { ok: false, reason: `not JSON (${parsed.reason})` };
    parsed = retry;
  }
  const v = parsed.value;
  if (!isRecord(v)) return { ok: false, reason: 'expected a JSON object' };
  if (v.type !== undefined && v.type !== 'result') return { ok: false, reason: `expected a "result" object, got type "${String(v.type)}"` };
  if (v.is_error !== undefined && typeof v.is_error !== 'boolean') return { ok: false, reason: '"is_error" is not a boolean' };
  if (v.result !== undefined && typeof v.result !== 'string') return { ok: false, reason: '"result" is not a string' };
  const subtype = typeof v.subtype === 'string' ? v.subtype : null;
  const isError = v.is_error === true || (subtype !== null && subtype.startsWith('error'));
  if (!isError && typeof v.result !== 'string') return { ok: false, reason: 'no "result" text' };
  return {
    ok: true,
    value: {
      result: typeof v.result === 'string' ? v.result : null,
      isError,
      subtype,
      sessionId: typeof v.session_id === 'string' ? v.session_id : null,
      costUsd: typeof v.total_cost_usd === 'number' ? v.total_cost_usd : null,
      numTurns: typeof v.num_turns === 'number' ? v.num_turns : null,
      apiErrorStatus: typeof v.api_error_status === 'number' ? v.api_error_status : null,
      errors: Array.isArray(v.errors) ? v.errors.filter((e): e is string => typeof e === 'string') : [],
      permissionDenials: deniedTools(v.permission_denials),
      usage: claudeResultUsage(v),
    },
  };
}

/**
 * Reads a finished `claude` process. Order: what ended the run for reasons outside the agent
 * (the provider's failure as the one classifier reads it, bad arguments) first, then denied permissions (even in a
 * "successful" result), then any other reported error, then the exit status, then the result.
 */
export function readClaudeCodeOutput(observation: RuntimeObservation, at: ReadContext = {}): AttemptResult {
  const parsed = parseClaudeCodeOutput(observation.stdout);
  // What the attempt cost counts whichever way it ended, a failure included.
  return withUsage(readParsedOutput(observation, parsed, at), parsed.ok ? parsed.value.usage : null);
}

function readParsedOutput(observation: RuntimeObservation, parsed: ReturnType<typeof parseClaudeCodeOutput>, at: ReadContext): AttemptResult {
  const name = observation.runtimeName;
  const processError = classifyObservation(observation);
  if (!parsed.ok) {
    // A failed process explains unparsable output better than the parse error does.
    if (processError === null) return { kind: 'failed', error: malformedOutput(name, parsed.reason, observation.stdout) };
    const context = { exitCode: observation.exitCode };
    return { kind: 'failed', error: statedError(name, observation.stderr, context, at) ?? processError };
  }
  const r = parsed.value;
  const text = r.result ?? (r.errors.length > 0 ? r.errors.join('; ') : r.subtype ? `error result (${r.subtype})` : 'error result');
  const context = { subtype: r.subtype, exitCode: observation.exitCode, sessionId: r.sessionId };
  if (r.isError) {
    // The API status it reported and its words, read by the classifier the ingest uses too.
    const stated = statedError(name, text, { ...context, ...(r.apiErrorStatus === null ? {} : { apiErrorStatus: r.apiErrorStatus }) }, at, r.apiErrorStatus);
    if (stated) return { kind: 'failed', error: stated };
  }
  if (r.permissionDenials.length > 0) {
    return {
      kind: 'failed',
      error: permissionDenied(name, at.agentName ?? 'default', r.permissionDenials, { sessionId: r.sessionId, exitCode: observation.exitCode }),
    };
  }
  if (r.isError) return { kind: 'failed', error: reportedError(name, text, context, at) };
  if (processError) return { kind: 'failed', error: processError };
  return {
    kind: 'succeeded',
    output: (r.result ?? '').trim(),
    meta: { sessionId: r.sessionId, costUsd: r.costUsd, numTurns: r.numTurns },
  };
}

export interface PresetTelemetryOptions {
  /** Where the CLIs this host runs send their telemetry (the receiver's endpoint and token), or null for nowhere. */
  telemetry?: (() => TelemetryTarget | null) | undefined;
}

export class ClaudeCodeRuntime implements SessionRuntime {
  readonly name = CLAUDE_CODE;
  readonly retries = CLAUDE_CODE_RETRIES;

  constructor(private readonly options: ProcessRuntimeOptions & PresetClockOptions & PresetTelemetryOptions = {}) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const argv = claudeCodeArgv(request.agent, request.prompt);
    // Its telemetry goes to the host's receiver, marked with this attempt; the agent's own env: wins.
    const target = this.options.telemetry?.() ?? null;
    const telemetry = target ? claudeCodeEnv(target, { runId: request.runId, taskId: request.taskId, attempt: request.attempt }) : {};
    if (!Array.isArray(argv)) return argv;
    const env = { ...telemetry, ...CLAUDE_CODE_ENV, ...attemptEnv(request) };
    return runAttemptProcess(argv, request, signal, {
      runtimeName: this.name,
      read: (observation) => readClaudeCodeOutput(observation, presetClock(this.options, request)),
      options: this.options,
      env,
      telemetry: target && claudeCodeExportsAsSet(env, telemetry) ? `runtime:${CLAUDE_CODE}` : undefined,
    });
  }
}
