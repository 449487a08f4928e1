import { classifyObservation, malformedOutput, type RuntimeObservation } from '../errors/classify.js';
import type { AgentSpec } from '../flow/plan.js';
import { runAttemptProcess, type ProcessRuntimeOptions } from './command.js';
import { isRecord, parseJson } from './json.js';
import { positional, presetArgv, reportedError } from './preset.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from './runtime.js';

/**
 * The `claude-code` preset: `claude -p <prompt> --output-format json [--model M]`.
 *
 * With `--output-format json` Claude Code prints one JSON object when the run ends:
 * `{"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution",
 *   "is_error":bool,"result":"<final text>","session_id":..,"total_cost_usd":..,"num_turns":..,...}`.
 * Its `result` is the session output; `is_error` (or an error subtype) is a failure the tool
 * reported itself, which explains more than its exit code.
 */

export const CLAUDE_CODE = 'claude-code';

export function claudeCodeArgs(prompt: string, model: string | null): string[] {
  const modelArgs = model ? ['--model', model] : [];
  // A prompt that looks like an option goes last, after `--`.
  return prompt.startsWith('-')
    ? ['-p', '--output-format', 'json', ...modelArgs, ...positional(prompt)]
    : ['-p', prompt, '--output-format', 'json', ...modelArgs];
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
    },
  };
}

/** Reads a finished `claude` process: its reported error first, then the exit status, then the result. */
export function readClaudeCodeOutput(observation: RuntimeObservation): AttemptResult {
  const parsed = parseClaudeCodeOutput(observation.stdout);
  const processError = classifyObservation(observation);
  if (!parsed.ok) {
    // A failed process explains unparsable output better than the parse error does.
    return { kind: 'failed', error: processError ?? malformedOutput(observation.runtimeName, parsed.reason, observation.stdout) };
  }
  const r = parsed.value;
  if (r.isError) {
    const text = r.result ?? (r.subtype ? `error result (${r.subtype})` : 'error result');
    const context = { subtype: r.subtype, exitCode: observation.exitCode, sessionId: r.sessionId };
    return { kind: 'failed', error: reportedError(observation.runtimeName, text, context) };
  }
  if (processError) return { kind: 'failed', error: processError };
  return {
    kind: 'succeeded',
    output: (r.result ?? '').trim(),
    meta: { sessionId: r.sessionId, costUsd: r.costUsd, numTurns: r.numTurns },
  };
}

export class ClaudeCodeRuntime implements SessionRuntime {
  readonly name = CLAUDE_CODE;

  constructor(private readonly options: ProcessRuntimeOptions = {}) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const argv = claudeCodeArgv(request.agent, request.prompt);
    if (!Array.isArray(argv)) return argv;
    return runAttemptProcess(argv, request, signal, { runtimeName: this.name, read: readClaudeCodeOutput, options: this.options });
  }
}
