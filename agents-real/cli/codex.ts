import { codexOtelToml } from '../../core/runtimes/presets/telemetry-env.js';
import { openai, type OpenAiStep } from '../stubs/openai-stub.js';
import type { StubLanes } from '../stubs/provider-stub.js';
import type { RunSpec, ScenarioId } from '../specs.js';

/**
 * How the harness runs Codex: `codex exec [--json] <prompt>` against the OpenAI stub as a custom
 * model provider (`[model_providers.<id>]` with `base_url`, `wire_api = "responses"`, `env_key`,
 * and the per-provider `request_max_retries`, `stream_max_retries`, `stream_idle_timeout_ms`),
 * telemetry on with the `[otel]` block `hivewatch otel-env --agent codex-cli` prints
 * (core/runtimes/presets/telemetry-env.ts) plus a trace exporter, and the features that reach the internet off.
 * Sources for every key: docs/real-agents.md.
 */

export const CODEX_STUB_API_KEY = 'sk-proj-hivewatch-stub-key-not-a-secret';
const CODEX_KEY_VARIABLE = 'HIVEWATCH_STUB_OPENAI_KEY';
const CODEX_PROVIDER_ID = 'hivewatch-stub';

const CODEX_PROMPTS = {
  text: 'Say hello.',
  tool: 'Run the shell command `echo hivewatch-tool-ran` and tell me what it printed.',
  refused: 'Create the file /etc/hivewatch-was-here.',
};

export function codexSteps(scenario: ScenarioId, nowMs: number): OpenAiStep[] {
  const nowSeconds = Math.floor(nowMs / 1000);
  switch (scenario) {
    case 'text':
      return [openai.text()];
    case 'tool':
      return [openai.tool('exec_command', { cmd: 'echo hivewatch-tool-ran' }), openai.text('The command printed hivewatch-tool-ran.')];
    case 'rate-limit':
      return [openai.rateLimited(1)];
    case 'rate-limit-then-ok':
      return [openai.rateLimited(1), openai.text()];
    case 'overloaded':
      return [openai.overloaded()];
    case 'server-error':
      return [openai.serverError()];
    case 'unauthorized':
      return [openai.unauthorized()];
    case 'forbidden':
      return [openai.forbidden()];
    case 'hang':
      return [openai.hang()];
    case 'stall':
      return [openai.stall()];
    case 'usage-limit':
      return [openai.usageLimit(Math.floor(nowSeconds / 60) * 60 + 2 * 3600, nowSeconds)];
    case 'usage-limit-next-day':
      return [openai.usageLimit(Math.floor(nowSeconds / 60) * 60 + 26 * 3600, nowSeconds)];
    case 'stream-error':
      return [openai.failed()];
    case 'subagent':
      // The agent calls spawn_agent (multi_agent, on by default; Codex lists it in its `collaboration` namespace),
      // then wait_agent, so `codex exec` does not end before the child thread's request (its next one waits for
      // the child's). The child gets text, as does the agent then. By position as recorded; each thread's own
      // script, which the harness answers by (codexLanes), gives every thread the same whatever the order.
      return [
        openai.tool('spawn_agent', { task_name: 'greeter', message: CODEX_PROMPTS.text }, 'collaboration'),
        openai.tool('wait_agent', { timeout_ms: 30_000 }, 'collaboration'),
        openai.text('The subagent said hello.'),
      ];
    case 'subagent-nested':
      // The agent spawns a thread and waits; that thread spawns one; every request after that gets text. By
      // position as recorded; the harness answers each thread by its own script (codexLanes).
      return [
        openai.tool('spawn_agent', { task_name: 'outer', message: 'Spawn a subagent that says hello.' }, 'collaboration'),
        openai.tool('wait_agent', { timeout_ms: 30_000 }, 'collaboration'),
        openai.tool('spawn_agent', { task_name: 'inner', message: CODEX_PROMPTS.text }, 'collaboration'),
        openai.text('The subagent said hello.'),
      ];
    case 'subagent-fails':
    case 'permission-hook-denies':
      // A subagent whose request fails needs the stub to tell the threads' requests apart (it answers by position);
      // the PermissionRequest hook is Claude Code's: the matrix has no such Codex run.
      throw new Error(`the ${scenario} scenario is recorded for Claude Code only (agents-real/matrix.ts)`);
    case 'refused':
      // More than the sandbox allows, under `codex exec`'s approval policy `never`: refused without a prompt.
      return [
        openai.tool('exec_command', { cmd: 'touch /etc/hivewatch-was-here', sandbox_permissions: 'require_escalated', justification: 'needs to write' }),
        openai.text('I could not run it.'),
      ];
  }
}

/**
 * The thread a Codex request comes from: `agent_name` in its `x-codex-turn-metadata` header
 * (`/root`, `/root/greeter`, `/root/outer/inner`, as the recordings show).
 */
function codexThreadOf(headers: Readonly<Record<string, string>>): string | null {
  try {
    const name = (JSON.parse(headers['x-codex-turn-metadata'] ?? '') as { agent_name?: unknown }).agent_name;
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/**
 * A script per thread for the scenarios whose threads send requests at once: the order in which a
 * spawned thread's first request and its parent's next one arrive is up to the machine's timing,
 * so a script by arrival position answered the child the parent's wait_agent now and then. Each
 * thread gets what its place in `codexSteps`' script gave it when the timing went as recorded.
 */
export function codexLanes(scenario: ScenarioId): StubLanes<OpenAiStep> | undefined {
  const hello = openai.text('The subagent said hello.');
  const wait = openai.tool('wait_agent', { timeout_ms: 30_000 }, 'collaboration');
  switch (scenario) {
    case 'subagent':
      return {
        of: codexThreadOf,
        steps: {
          '/root': [openai.tool('spawn_agent', { task_name: 'greeter', message: CODEX_PROMPTS.text }, 'collaboration'), wait, hello],
          '/root/greeter': [hello],
        },
      };
    case 'subagent-nested':
      return {
        of: codexThreadOf,
        steps: {
          '/root': [openai.tool('spawn_agent', { task_name: 'outer', message: 'Spawn a subagent that says hello.' }, 'collaboration'), wait, hello],
          '/root/outer': [openai.tool('spawn_agent', { task_name: 'inner', message: CODEX_PROMPTS.text }, 'collaboration'), hello],
          '/root/outer/inner': [hello],
        },
      };
    default:
      return undefined;
  }
}

export interface CodexContext {
  stubUrl: string;
  otlpUrl: string;
  otlpToken: string;
  resourceAttributes: string;
}

const toml = (text: string): string => JSON.stringify(text);

/** The provider table: the stub, and the CLI's retry and idle settings when the spec sets them. */
function providerToml(spec: RunSpec, stubUrl: string): string[] {
  const retries = spec.retries === 'default' ? [] : [`request_max_retries = ${spec.retries}`, `stream_max_retries = ${spec.retries}`];
  // The smallest idle limit that still leaves a loaded machine room to answer a healthy stream.
  const idle = spec.scenario === 'stall' ? ['stream_idle_timeout_ms = 2000'] : [];
  return [
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    'name = "Hivewatch provider stub"',
    `base_url = ${toml(`${stubUrl}/v1`)}`,
    'wire_api = "responses"',
    `env_key = ${toml(CODEX_KEY_VARIABLE)}`,
    ...retries,
    ...idle,
  ];
}

/** `[otel]` as `hivewatch otel-env --agent codex-cli` prints it, in the spec's protocol, plus traces. */
function otelToml(spec: RunSpec, context: CodexContext): string[] {
  const protocol = spec.protocol === 'json' ? 'json' : 'binary';
  const logs = codexOtelToml({ endpoint: context.otlpUrl, token: context.otlpToken }).replace('protocol = "json"', `protocol = ${toml(protocol)}`);
  const traces = `trace_exporter = { otlp-http = { endpoint = ${toml(`${context.otlpUrl}/v1/traces`)}, protocol = ${toml(protocol)}, headers = { "Authorization" = ${toml(`Bearer ${context.otlpToken}`)} } } }`;
  // Codex reports which thread spawned which only in its metrics (docs/otel.md "Subagents").
  const metrics = `metrics_exporter = { otlp-http = { endpoint = ${toml(`${context.otlpUrl}/v1/metrics`)}, protocol = ${toml(protocol)}, headers = { "Authorization" = ${toml(`Bearer ${context.otlpToken}`)} } } }`;
  return [logs.trimEnd(), traces, ...(spec.scenario.startsWith('subagent') ? [metrics] : [])];
}

/** What keeps Codex on loopback (docs/real-agents.md: what each one stopped). */
const CODEX_QUIET_TOML = [
  // Off: the update check and the product analytics (with either on, ab.chatgpt.com was reached).
  'check_for_update_on_startup = false',
  '',
  '[analytics]',
  'enabled = false',
  '',
  '[features]',
  // Off: the curated plugin sync (git ls-remote github.com, chatgpt.com/backend-api/plugins).
  'plugins = false',
  '',
];

export function codexConfigToml(spec: RunSpec, context: CodexContext): string {
  // The built-in provider takes its address from `openai_base_url` (0.171.0 no longer reads OPENAI_BASE_URL) and keeps its own retry settings.
  const provider = spec.builtInProvider ? [`openai_base_url = ${toml(`${context.stubUrl}/v1`)}`] : [`model_provider = ${toml(CODEX_PROVIDER_ID)}`];
  return [
    ...provider,
    ...(spec.networkDefaults ? [''] : CODEX_QUIET_TOML),
    ...(spec.builtInProvider ? [] : providerToml(spec, context.stubUrl)),
    '',
    ...otelToml(spec, context),
    '',
    // The commands Codex runs for a tool call run in its sandbox, where libfaketime (the suite's
    // midnight checks, docs/testing.md) cannot open the semaphore Codex's own preload made: the
    // command would exit 1 before it starts. They need no faked clock, so they get none.
    '[shell_environment_policy]',
    'exclude = ["FAKETIME*", "LD_PRELOAD"]',
    '',
  ].join('\n');
}

export function codexEnv(spec: RunSpec, context: CodexContext, codexHome: string): Record<string, string> {
  // The built-in provider signs in with an API key from the environment (`codex exec` reads CODEX_API_KEY).
  const builtIn: Record<string, string> = spec.builtInProvider ? { CODEX_API_KEY: CODEX_STUB_API_KEY } : {};
  return {
    CODEX_HOME: codexHome,
    [CODEX_KEY_VARIABLE]: CODEX_STUB_API_KEY,
    ...builtIn,
    OTEL_RESOURCE_ATTRIBUTES: context.resourceAttributes,
    // Only what the CLI flushes when it ends: the Rust SDK's batch delays (OTEL_BLRP_/BSP_), an hour.
    ...(spec.exportAtExit ? { OTEL_BLRP_SCHEDULE_DELAY: '3600000', OTEL_BSP_SCHEDULE_DELAY: '3600000' } : {}),
  };
}

export function codexArgs(spec: RunSpec): string[] {
  const prompt = spec.scenario === 'tool' || spec.scenario === 'refused' ? CODEX_PROMPTS[spec.scenario] : CODEX_PROMPTS.text;
  return ['exec', ...(spec.output === 'json' ? ['--json'] : []), prompt];
}
