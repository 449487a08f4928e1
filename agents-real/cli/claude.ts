import { claudeCodeEnv } from '../../core/runtimes/presets/telemetry-env.js';
import { anthropic, type AnthropicStep } from '../stubs/anthropic-stub.js';
import type { RunSpec, ScenarioId } from '../specs.js';

/**
 * How the harness runs Claude Code: `claude -p <prompt>` (print mode) against the Anthropic stub,
 * telemetry on with exactly what `hivewatch otel-env` prints (core/runtimes/presets/telemetry-env.ts) plus traces, and
 * everything that would leave the machine turned off. The settings are Claude Code's documented
 * environment variables (docs/real-agents.md lists them with their sources).
 */

/** Made-up credentials; the recorder redacts them anyway. */
export const CLAUDE_STUB_API_KEY = 'sk-ant-api03-hivewatch-stub-key-not-a-secret';
export const CLAUDE_STUB_OAUTH_TOKEN = 'sk-ant-oat01-hivewatch-stub-oauth-not-a-secret';

const CLAUDE_PROMPTS = {
  text: 'Say hello.',
  tool: 'Run the shell command `echo hivewatch-tool-ran` and tell me what it printed.',
  subagent: 'Ask a subagent to say hello, then tell me what it said.',
  'subagent-fails': 'Ask a subagent to say hello, then tell me what it said.',
  'subagent-nested': 'Start a chain of three subagents, each asking the next, then tell me what the last one said.',
  refused: 'Remove the build folder with `rm -rf build`.',
  'permission-hook-denies': 'Remove the build folder with `rm -rf build`.',
};

/** The prompt of a scenario: its own where it has one, else the plain greeting. */
function claudePrompt(scenario: ScenarioId): string {
  return scenario in CLAUDE_PROMPTS ? CLAUDE_PROMPTS[scenario as keyof typeof CLAUDE_PROMPTS] : CLAUDE_PROMPTS.text;
}

/** The Agent tool call that starts a general-purpose subagent with the prompt "Say hello.". */
const AGENT_SAYS_HELLO = anthropic.tool('Agent', { description: 'Say hello', prompt: 'Say hello.', subagent_type: 'general-purpose' });
const NESTED_OUTER = 'Ask a subagent to ask a subagent to say hello.';
const NESTED_MIDDLE = 'Ask a subagent to say hello.';
/**
 * Every later turn of the session: the one right after its Agent call returned (the subagent runs
 * in the background) and the one the subagent's notification starts.
 */
const SESSION_ANSWERS = anthropic.text('The subagent is on it, or has answered.');

export function claudeSteps(scenario: ScenarioId, nowMs: number): AnthropicStep[] {
  switch (scenario) {
    case 'text':
      return [anthropic.text()];
    case 'tool':
      return [
        anthropic.tool('Bash', { command: 'echo hivewatch-tool-ran', description: 'Print a marker' }),
        anthropic.text('The command printed hivewatch-tool-ran.'),
      ];
    case 'rate-limit':
      return [anthropic.rateLimited(1)];
    case 'rate-limit-then-ok':
      return [anthropic.rateLimited(1), anthropic.text()];
    case 'overloaded':
      return [anthropic.overloaded()];
    case 'server-error':
      return [anthropic.serverError()];
    case 'unauthorized':
      return [anthropic.unauthorized()];
    case 'forbidden':
      return [anthropic.forbidden()];
    case 'hang':
      return [anthropic.hang()];
    case 'stall':
      return [anthropic.stall()];
    case 'usage-limit':
      // Two hours ahead, on the minute: the CLI prints the reset as a wall-clock time.
      return [anthropic.usageLimit(Math.floor(nowMs / 60_000) * 60 + 2 * 3600)];
    case 'usage-limit-next-day':
      // Only a weekly limit resets more than five hours ahead.
      return [anthropic.usageLimit(Math.floor(nowMs / 60_000) * 60 + 26 * 3600, 'seven_day')];
    case 'stream-error':
      return [anthropic.streamError()];
    case 'subagent':
      // The agent's request starts a subagent (the Agent tool, Claude Code's name for Task since 2.1),
      // the subagent's own request answers, then the agent's next request ends the turn.
      return [
        anthropic.tool('Agent', { description: 'Say hello', prompt: 'Say hello.', subagent_type: 'general-purpose' }),
        anthropic.text('Hello from the subagent.'),
        anthropic.text('The subagent said hello.'),
      ];
    case 'subagent-fails':
      // The subagent's one request fails (the CLI's retries off); the session's later turns answer with text.
      return [
        anthropic.byConversation([
          { opensWith: CLAUDE_PROMPTS['subagent-fails'], steps: [AGENT_SAYS_HELLO, SESSION_ANSWERS] },
          { opensWith: 'Say hello.', steps: [anthropic.serverError()] },
        ]),
      ];
    case 'subagent-nested':
      // Three levels: the session's subagent starts one, which starts one more. A subagent's own Agent call
      // waits for its subagent (only the session's runs in the background), so its second turn is its last.
      return [
        anthropic.byConversation([
          {
            opensWith: CLAUDE_PROMPTS['subagent-nested'],
            steps: [anthropic.tool('Agent', { description: 'Start a chain', prompt: NESTED_OUTER, subagent_type: 'general-purpose' }), SESSION_ANSWERS],
          },
          {
            opensWith: NESTED_OUTER,
            steps: [
              anthropic.tool('Agent', { description: 'Relay a hello', prompt: NESTED_MIDDLE, subagent_type: 'general-purpose' }),
              anthropic.text('The chain said hello.'),
            ],
          },
          { opensWith: NESTED_MIDDLE, steps: [AGENT_SAYS_HELLO, anthropic.text('The innermost subagent said hello.')] },
          { opensWith: 'Say hello.', steps: [anthropic.text('Hello from the innermost subagent.')] },
        ]),
      ];
    case 'refused':
    case 'permission-hook-denies':
      // Print mode allows no Bash command that --allowedTools does not name: this one is refused.
      return [anthropic.tool('Bash', { command: 'rm -rf build', description: 'Remove the build folder' }), anthropic.text('I was not allowed to remove it.')];
  }
}

export interface ClaudeContext {
  stubUrl: string;
  otlpUrl: string;
  otlpToken: string;
  /** OTEL_RESOURCE_ATTRIBUTES as a preset passes it (percent-encoded values). */
  resourceAttributes: string;
}

/**
 * What keeps Claude Code on loopback: no update check, no vendor telemetry or error reports.
 * CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC alone was enough for 2.1.332 (docs/real-agents.md).
 */
const CLAUDE_QUIET_ENV: Readonly<Record<string, string>> = {
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
};

/** Timeouts lowered so a hang or a stall ends through the CLI's own limits within seconds. */
function timeoutEnv(scenario: ScenarioId): Record<string, string> {
  if (scenario === 'hang') return { API_TIMEOUT_MS: '4000' };
  // 10 s is the smallest byte-stream idle limit Claude Code accepts; its non-streaming retry of a
  // stalled stream then meets API_TIMEOUT_MS.
  if (scenario === 'stall') return { API_TIMEOUT_MS: '4000', CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS: '10000' };
  return {};
}

export function claudeEnv(spec: RunSpec, context: ClaudeContext): Record<string, string> {
  const telemetry = claudeCodeEnv({ endpoint: context.otlpUrl, token: context.otlpToken });
  // A subscription's usage limit is read only when Claude Code signs in with an OAuth token.
  const auth: Record<string, string> = spec.scenario.startsWith('usage-limit')
    ? { CLAUDE_CODE_OAUTH_TOKEN: CLAUDE_STUB_OAUTH_TOKEN }
    : { ANTHROPIC_API_KEY: CLAUDE_STUB_API_KEY };
  const retries: Record<string, string> = spec.retries === 'default' ? {} : { CLAUDE_CODE_MAX_RETRIES: String(spec.retries) };
  return {
    ANTHROPIC_BASE_URL: context.stubUrl,
    ...auth,
    ...(spec.networkDefaults ? {} : CLAUDE_QUIET_ENV),
    ...telemetry,
    OTEL_EXPORTER_OTLP_PROTOCOL: spec.protocol === 'json' ? 'http/json' : 'http/protobuf',
    OTEL_RESOURCE_ATTRIBUTES: context.resourceAttributes,
    OTEL_TRACES_EXPORTER: 'otlp',
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
    // At exit Claude Code gives its exporters this long, 2 s by default (read from its bundled code):
    // on a loaded machine a run's traces once missed that. What it sends is the same; it arrives.
    CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '30000',
    // Only what the CLI flushes when it ends: the documented interval variables, an hour long.
    ...(spec.exportAtExit ? { OTEL_LOGS_EXPORT_INTERVAL: '3600000', OTEL_TRACES_EXPORT_INTERVAL: '3600000' } : {}),
    ...retries,
    ...timeoutEnv(spec.scenario),
  };
}

/** How long the permission hook holds its prompt: more than one periodic log export (5 s), so the pending prompt is exported before its decision. */
export const PERMISSION_HOOK_HOLD_S = 6;

/**
 * The settings file a scenario needs (`--settings`), or null. The permission hook answers in the
 * form Claude Code's hooks reference gives for PermissionRequest (https://code.claude.com/docs/en/hooks):
 * `hookSpecificOutput.decision.behavior` `deny` with a message. A fixed command: nothing in it comes from input.
 */
export function claudeSettings(scenario: ScenarioId): Record<string, unknown> | null {
  if (scenario !== 'permission-hook-denies') return null;
  const answer = JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'Denied by the operator.' } },
  });
  return {
    hooks: { PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sleep ${PERMISSION_HOOK_HOLD_S}; printf '%s' '${answer}'` }] }] },
  };
}

/** `settingsPath`: where the harness wrote claudeSettings(), when the scenario has any. */
export function claudeArgs(spec: RunSpec, settingsPath?: string): string[] {
  const prompt = claudePrompt(spec.scenario);
  const output = spec.output === 'json' ? ['--output-format', 'stream-json', '--verbose'] : spec.output === 'result-json' ? ['--output-format', 'json'] : [];
  const tools = spec.scenario === 'tool' ? ['--allowedTools', 'Bash(echo:*)'] : [];
  const settings = settingsPath === undefined ? [] : ['--settings', settingsPath];
  return ['-p', prompt, ...output, ...tools, ...settings];
}
