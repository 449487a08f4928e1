import { classifyObservation, malformedOutput, type RuntimeObservation } from '../base/errors/classify.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { outcomeForAttempt, parseSimulate, type SimulatedOutcome } from '../flow/plan/simulate.js';
import { isRecord, parseJson } from '../base/json.js';
import type { AttemptRequest, AttemptResult } from './runtime.js';

/**
 * What the fake and noop runtimes share, so they can never disagree: which outcome an attempt
 * gets, what the fake agent prints for it (noop's in-process mirror of fake-agent.js), and how
 * that output becomes a result.
 */

export const DEFAULT_SIMULATE = 'ok';
const RATE_LIMIT_STDERR = 'Error: 429 Too Many Requests (rate limit exceeded)';
const PROMPT_CHARS = 80;

/** The prompt as `ok` echoes it: at most 80 characters, an ellipsis marking a cut (as fake-agent.js). */
export function shortenPrompt(prompt: string): string {
  const chars = Array.from(prompt);
  return chars.length <= PROMPT_CHARS ? prompt : `${chars.slice(0, PROMPT_CHARS - 1).join('')}…`;
}

/**
 * An origin must match `agent:[A-Za-z0-9_.-]+`; an agent named otherwise still gets an
 * attributable origin instead of the error constructor throwing.
 */
function agentOrigin(agentName: string): string {
  const safe = agentName.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `agent:${safe === '' ? 'default' : safe}`;
}

/** The outcome this attempt plays, or a user error for a script `check` should have rejected. */
export function simulatedOutcome(request: AttemptRequest): { ok: true; outcome: SimulatedOutcome } | { ok: false; result: AttemptResult } {
  const parsed = parseSimulate(request.simulate ?? DEFAULT_SIMULATE);
  if (!parsed.ok) {
    const error = new HivewatchError('USER_INVALID_FLOW', {
      message: `invalid simulate "${request.simulate ?? ''}": ${parsed.message}`,
      origin: 'user',
      context: { simulate: request.simulate, task: request.taskId },
    });
    return { ok: false, result: { kind: 'failed', error } };
  }
  return { ok: true, outcome: outcomeForAttempt(parsed.outcomes, request.attempt) };
}

/**
 * What the fake agent process is observed doing for an outcome that ends by itself (everything
 * but the wait of `slow`, which then behaves as `ok`).
 */
export function simulatedObservation(outcome: SimulatedOutcome, prompt: string, runtimeName: string): RuntimeObservation {
  const base = { runtimeName, exitCode: 0, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 0 };
  const ok = (result: string, changes: number): RuntimeObservation => ({ ...base, stdout: `${JSON.stringify({ result, changes })}\n` });
  switch (outcome.kind) {
    case 'ok':
      return ok(outcome.text ?? `ok: ${shortenPrompt(prompt)}`, 1);
    case 'slow':
      return ok(`ok: ${shortenPrompt(prompt)}`, 1);
    case 'no_changes':
      return ok('nothing to do', 0);
    case 'rate_limit':
      return { ...base, exitCode: 1, stderr: `${RATE_LIMIT_STDERR}\n` };
    case 'timeout':
      return { ...base, exitCode: 124, stderr: 'timed out\n' };
    case 'crash':
      return { ...base, exitCode: null, signal: 'SIGSEGV' };
    case 'exit':
      return { ...base, exitCode: outcome.code, stderr: `fake agent exiting with code ${outcome.code}\n` };
    case 'malformed':
      return { ...base, stdout: '{not json\n' };
  }
}

/** A `slow` attempt cut off by its timeout, as the fake's process is observed after SIGTERM. */
export function timedOutObservation(runtimeName: string, timeoutMs: number): RuntimeObservation {
  return { runtimeName, exitCode: null, signal: 'SIGTERM', timedOut: true, stdout: '', stderr: '', durationMs: 0, timeoutMs };
}

/**
 * Reads what the fake agent printed: `{"result": text, "changes": n}`. A failed process is
 * classified; unparsable output is RUNTIME_OUTPUT_MALFORMED; `changes: 0` is the agent's
 * failure (AGENT_NO_CHANGES), not the runtime's.
 *
 * `durationMs` is zeroed before classifying: error contexts are journaled, and a flow run twice
 * on the fake runtime must yield the same journal (rule 15), which wall-clock durations
 * of real subprocesses would break.
 */
export function readFakeOutput(observation: RuntimeObservation, agentName: string): AttemptResult {
  const deterministic = { ...observation, durationMs: 0 };
  const processError = classifyObservation(deterministic);
  if (processError) return { kind: 'failed', error: processError };
  const parsed = parseJson(observation.stdout.trim());
  const runtime = observation.runtimeName;
  if (!parsed.ok) return { kind: 'failed', error: malformedOutput(runtime, `not JSON (${parsed.reason})`, observation.stdout) };
  const value = parsed.value;
  if (!isRecord(value) || typeof value.result !== 'string') {
    return { kind: 'failed', error: malformedOutput(runtime, 'expected {"result": string, "changes": number}', observation.stdout) };
  }
  const changes = typeof value.changes === 'number' ? value.changes : null;
  if (changes === 0) {
    return {
      kind: 'failed',
      error: new HivewatchError('AGENT_NO_CHANGES', {
        message: `agent ${agentName} completed without producing changes: ${value.result}`,
        origin: agentOrigin(agentName),
        context: { result: value.result },
      }),
    };
  }
  return { kind: 'succeeded', output: value.result, meta: { changes } };
}
