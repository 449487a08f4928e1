import { classifyObservation, malformedOutput, type RuntimeObservation } from '../errors/classify.js';
import type { AgentSpec } from '../flow/plan.js';
import { runAttemptProcess, type ProcessRuntimeOptions } from './command.js';
import { isRecord, parseJson } from './json.js';
import { positional, presetArgv, reportedError } from './preset.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from './runtime.js';

/**
 * The `codex-cli` preset: `codex exec --json [--model M] <prompt>`.
 *
 * `codex exec --json` prints JSON lines, one event each: `thread.started {thread_id}`,
 * `turn.started`, `item.started|updated|completed {item: {id, type, ...}}` where an item of type
 * `agent_message` carries the agent's `text`, then `turn.completed {usage}` or
 * `turn.failed {error: {message}}`; a top-level `error {message}` may appear too. The session
 * output is the text of the last agent message. Older releases printed `{"msg": {"type":
 * "agent_message", "message": ...}}` events instead; those are read as well.
 */

export const CODEX_CLI = 'codex-cli';

export function codexCliArgs(prompt: string, model: string | null): string[] {
  return ['exec', '--json', ...(model ? ['--model', model] : []), ...positional(prompt)];
}

export function codexCliArgv(agent: AgentSpec, prompt: string): string[] | AttemptResult {
  return presetArgv(agent, prompt, ['codex'], codexCliArgs(prompt, agent.model));
}

export interface CodexRun {
  /** Text of the last agent message, or null when there was none. */
  message: string | null;
  /** The last terminal event: a completed or a failed turn (an `error` event counts as failed). */
  outcome: 'completed' | 'failed' | null;
  failure: string | null;
  threadId: string | null;
  usage: Record<string, unknown> | null;
  /** JSON events read; lines that are not JSON objects (a truncation marker, stray text) are skipped. */
  events: number;
}

function errorMessage(value: unknown, fallback: string): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.message === 'string') return value.message;
  return fallback;
}

export function parseCodexEvents(stdout: string): CodexRun {
  const run: CodexRun = { message: null, outcome: null, failure: null, threadId: null, usage: null, events: 0 };
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('{')) continue;
    const parsed = parseJson(line);
    if (!parsed.ok || !isRecord(parsed.value)) continue;
    const event = parsed.value;
    run.events++;
    if (isRecord(event.msg)) {
      readLegacyEvent(event.msg, run);
      continue;
    }
    switch (event.type) {
      case 'thread.started':
        if (typeof event.thread_id === 'string') run.threadId = event.thread_id;
        break;
      case 'item.completed': {
        const item = event.item;
        if (isRecord(item) && (item.type === 'agent_message' || item.type === 'assistant_message') && typeof item.text === 'string') {
          run.message = item.text;
        }
        break;
      }
      case 'turn.completed':
        run.outcome = 'completed';
        run.failure = null;
        if (isRecord(event.usage)) run.usage = event.usage;
        break;
      case 'turn.failed':
        run.outcome = 'failed';
        run.failure = errorMessage(event.error, 'turn failed');
        break;
      case 'error':
        run.outcome = 'failed';
        run.failure = errorMessage(event.message ?? event.error, 'error event');
        break;
    }
  }
  return run;
}

function readLegacyEvent(msg: Record<string, unknown>, run: CodexRun): void {
  switch (msg.type) {
    case 'agent_message':
      if (typeof msg.message === 'string') run.message = msg.message;
      break;
    case 'task_complete':
      run.outcome = 'completed';
      run.failure = null;
      if (typeof msg.last_agent_message === 'string') run.message = msg.last_agent_message;
      break;
    case 'error':
    case 'stream_error':
      run.outcome = 'failed';
      run.failure = errorMessage(msg.message, 'error event');
      break;
  }
}

/** Reads a finished `codex exec --json`: a failed turn first, then the exit status, then the last agent message. */
export function readCodexCliOutput(observation: RuntimeObservation): AttemptResult {
  const run = parseCodexEvents(observation.stdout);
  if (run.outcome === 'failed') {
    const context = { exitCode: observation.exitCode, threadId: run.threadId };
    return { kind: 'failed', error: reportedError(observation.runtimeName, run.failure ?? 'turn failed', context) };
  }
  const processError = classifyObservation(observation);
  if (processError) return { kind: 'failed', error: processError };
  if (run.message === null) {
    const reason = run.events === 0 ? 'no JSON events on stdout' : `no agent message among ${run.events} events`;
    return { kind: 'failed', error: malformedOutput(observation.runtimeName, reason, observation.stdout) };
  }
  return { kind: 'succeeded', output: run.message.trim(), meta: { threadId: run.threadId, usage: run.usage } };
}

export class CodexCliRuntime implements SessionRuntime {
  readonly name = CODEX_CLI;

  constructor(private readonly options: ProcessRuntimeOptions = {}) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const argv = codexCliArgv(request.agent, request.prompt);
    if (!Array.isArray(argv)) return argv;
    return runAttemptProcess(argv, request, signal, { runtimeName: this.name, read: readCodexCliOutput, options: this.options });
  }
}
