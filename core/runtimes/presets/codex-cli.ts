import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { classifyObservation, malformedOutput, type RuntimeObservation } from '../../base/errors/classify.js';
import type { AgentSpec } from '../../flow/plan/plan.js';
import { codexBuiltInRequests } from '../../flow/check/retry-owners.js';
import { codexHomeOf, configuredProvider, isApprovalRefusal, providerRetryOverrides, refusedCommands } from './codex-home.js';
import { codexOtelOverrides, resourceAttributes } from './telemetry-env.js';
import type { PresetTelemetryOptions } from './claude-code.js';
import { attemptEnv, runAttemptProcess, type ProcessRuntimeOptions } from '../command.js';
import { isRecord, parseJson } from '../../base/json.js';
import { InnerRetries, permissionDenied, positional, presetArgv, reportedError, statedError, type DeniedTool, type PresetRetryOwnership } from './preset.js';
import { presetClock, type PresetClockOptions, type ReadContext } from './preset-clock.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from '../runtime.js';
import { codexTurnUsage, withUsage } from './preset-usage.js';
import type { TokenUsage } from '../../base/usage.js';
import { addUsage } from '../../base/usage-check.js';

/**
 * The `codex-cli` preset: `codex exec --json [--model M] -- <prompt>`.
 *
 * `codex exec --json` prints JSON lines, one event each: `thread.started {thread_id}`,
 * `turn.started`, `item.started|updated|completed {item: {id, type, ...}}` where an item of type
 * `agent_message` carries the agent's `text`, then `turn.completed {usage}` or
 * `turn.failed {error: {message}}`; a top-level `error {message}` may appear too. The session
 * output is the text of the last agent message. Older releases printed `{"msg": {"type":
 * "agent_message", "message": ...}}` events instead; those are read as well. A
 * `command_execution` item whose `status` is `declined` is a command the approval policy refused
 * (codex-rs/exec/src/exec_events.rs, CommandExecutionStatus::Declined; docs/presets.md).
 */

const CODEX_CLI = 'codex-cli';

/**
 * Codex retries failed requests (request_max_retries, default 4) and restarts failed streams
 * (stream_max_retries, default 5) per model provider. The preset sets both to 0 with `-c`
 * for the provider the user's config.toml selects (measured: one request per attempt), but a
 * setting for a built-in provider such as `openai` is ignored (built-ins win when the config is
 * merged): with it one attempt may still contain several requests, so the check still warns.
 */
export const CODEX_CLI_RETRIES: PresetRetryOwnership = {
  innerRetries: InnerRetries.internal,
  how: `off (-c model_providers.<id>.request_max_retries=0, stream_max_retries=0) for a custom model provider; the built-in openai provider keeps its own (${codexBuiltInRequests()})`,
};

/**
 * `skipGitRepoCheck`: the attempt runs outside any git repository, where Codex refuses to start
 * ("Not inside a trusted directory and --skip-git-repo-check was not specified"; docs/presets.md).
 */
function codexCliArgs(prompt: string, model: string | null, skipGitRepoCheck = false): string[] {
  return ['exec', '--json', ...(skipGitRepoCheck ? ['--skip-git-repo-check'] : []), ...(model ? ['--model', model] : []), ...positional(prompt)];
}

export function codexCliArgv(agent: AgentSpec, prompt: string, skipGitRepoCheck = false): string[] | AttemptResult {
  return presetArgv(agent, prompt, ['codex'], codexCliArgs(prompt, agent.model, skipGitRepoCheck));
}

/** Whether `dir` or a folder above it holds `.git` (a repository, or a worktree's `.git` file). */
export function insideGitRepository(dir: string): boolean {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}

export interface CodexRun {
  /** Text of the last agent message, or null when there was none. */
  message: string | null;
  /** The last terminal event: a completed or a failed turn (an `error` event counts as failed). */
  outcome: 'completed' | 'failed' | null;
  failure: string | null;
  threadId: string | null;
  usage: Record<string, unknown> | null;
  /** Every completed turn's usage added up (preset-usage.ts); null when no turn reported one. */
  tokens: TokenUsage | null;
  /** JSON events read; lines that are not JSON objects (a truncation marker, stray text) are skipped. */
  events: number;
  /** Commands the approval policy declined. */
  declined: DeniedTool[];
}

function errorMessage(value: unknown, fallback: string): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.message === 'string') return value.message;
  return fallback;
}

export function parseCodexEvents(stdout: string): CodexRun {
  const run: CodexRun = { message: null, outcome: null, failure: null, threadId: null, usage: null, tokens: null, events: 0, declined: [] };
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
        if (isRecord(item) && item.type === 'command_execution' && item.status === 'declined') {
          run.declined.push({ tool: 'shell', detail: typeof item.command === 'string' ? item.command : null });
        }
        break;
      }
      case 'turn.completed':
        run.outcome = 'completed';
        run.failure = null;
        if (isRecord(event.usage)) {
          run.usage = event.usage;
          const turn = codexTurnUsage(event.usage);
          if (turn) run.tokens = addUsage(run.tokens, turn);
        }
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

/**
 * Reads a finished `codex exec --json`. Order as for claude-code: a failed turn's stated cause
 * (usage limit, sign-in, bad arguments) first, then declined commands, then any other failed
 * turn, then the exit status (its stderr read for the same causes), then the last agent message.
 */
export function readCodexCliOutput(
  observation: RuntimeObservation,
  at: ReadContext = {},
  refused: (threadId: string) => DeniedTool[] = () => [],
): AttemptResult {
  const run = parseCodexEvents(observation.stdout);
  // `codex exec` refuses a command its approval policy does not allow without printing an item for it; its
  // rollout names the command, its log says why (docs/presets.md "codex-cli").
  const fromRollout = run.threadId !== null ? refused(run.threadId) : [];
  if (fromRollout.length === 0 && isApprovalRefusal(observation.stderr)) fromRollout.push({ tool: 'shell', detail: null });
  run.declined.push(...fromRollout);
  // Turns that completed before a later one failed were still paid for.
  return withUsage(readCodexRun(observation, run, at), run.tokens);
}

function readCodexRun(observation: RuntimeObservation, run: CodexRun, at: ReadContext): AttemptResult {
  const name = observation.runtimeName;
  const context = { exitCode: observation.exitCode, threadId: run.threadId };
  if (run.outcome === 'failed') {
    const text = run.failure ?? 'turn failed';
    const stated = statedError(name, text, context, at);
    if (stated) return { kind: 'failed', error: stated };
  }
  if (run.declined.length > 0) {
    return { kind: 'failed', error: permissionDenied(name, at.agentName ?? 'default', run.declined, context) };
  }
  if (run.outcome === 'failed') {
    return { kind: 'failed', error: reportedError(name, run.failure ?? 'turn failed', context, at) };
  }
  const processError = classifyObservation(observation);
  if (processError) {
    return { kind: 'failed', error: statedError(name, observation.stderr, context, at) ?? processError };
  }
  if (run.message === null) {
    const reason = run.events === 0 ? 'no JSON events on stdout' : `no agent message among ${run.events} events`;
    return { kind: 'failed', error: malformedOutput(name, reason, observation.stdout) };
  }
  return { kind: 'succeeded', output: run.message.trim(), meta: { threadId: run.threadId, usage: run.usage } };
}

export class CodexCliRuntime implements SessionRuntime {
  readonly name = CODEX_CLI;
  readonly retries = CODEX_CLI_RETRIES;

  constructor(private readonly options: ProcessRuntimeOptions & PresetClockOptions & PresetTelemetryOptions = {}) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const cwd = request.cwd ?? request.agent.cwd ?? process.cwd();
    const argv = codexCliArgv(request.agent, request.prompt, !insideGitRepository(cwd));
    if (!Array.isArray(argv)) return argv;
    const codexHome = codexHomeOf({ ...process.env, ...request.agent.env });
    // Codex takes its exporter and its provider's retry settings from config (`-c` overrides, before the
    // subcommand); the attempt's identity rides on OTEL_RESOURCE_ATTRIBUTES, which Codex passes on as given
    // (docs/otel.md).
    const target = this.options.telemetry?.() ?? null;
    const identity = { runId: request.runId, taskId: request.taskId, attempt: request.attempt };
    const overrides = [...providerRetryOverrides(configuredProvider(codexHome)), ...(target ? codexOtelOverrides(target) : [])];
    // A shell: true command is the operator's own script: it gets no arguments put into it.
    const withOverrides = request.agent.shell ? argv : [argv[0] as string, ...overrides, ...argv.slice(1)];
    const env = target ? { OTEL_RESOURCE_ATTRIBUTES: resourceAttributes(identity), ...attemptEnv(request) } : undefined;
    // The exporter rides on the overrides (a shell: true command gets none); records reach the attempt by its identity.
    const exports = target !== null && !request.agent.shell && env?.OTEL_RESOURCE_ATTRIBUTES === resourceAttributes(identity);
    return runAttemptProcess(withOverrides, request, signal, {
      runtimeName: this.name,
      read: (observation) => readCodexCliOutput(observation, presetClock(this.options, request), (thread) => refusedCommands(codexHome, thread)),
      options: this.options,
      ...(env ? { env } : {}),
      telemetry: exports ? `runtime:${CODEX_CLI}` : undefined,
    });
  }
}
