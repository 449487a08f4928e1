/**
 * What points an agent CLI's telemetry at a Hivewatch receiver (docs/otel.md "Setup"): the
 * environment of Claude Code, the `[otel]` block of Codex's config.toml. `hivewatch otel-env`
 * prints them; the presets pass them to the CLIs Hivewatch runs itself, with the
 * attempt's identity as resource attributes.
 */

export interface TelemetryTarget {
  /** The receiver's base URL, `http://127.0.0.1:<port>`. */
  endpoint: string;
  token: string;
}

export const OTEL_AGENTS = ['claude-code', 'codex-cli'] as const;
export type OtelAgent = (typeof OTEL_AGENTS)[number];

/** The attempt a preset's child runs for, as OTLP resource attributes (mapping.ts reads them back). */
export interface AttemptIdentity {
  runId: string;
  taskId: string;
  attempt: number;
}

/** `key=value,…` with the W3C baggage-style escaping OTEL_RESOURCE_ATTRIBUTES uses (percent-encoding). */
export function resourceAttributes(identity: AttemptIdentity): string {
  const pairs: [string, string][] = [
    ['hivewatch.run_id', identity.runId],
    ['hivewatch.task_id', identity.taskId],
    ['hivewatch.attempt', String(identity.attempt)],
  ];
  return pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(',');
}

/**
 * Claude Code's environment: events as OTLP/HTTP JSON logs to the receiver; no metrics (the
 * receiver takes none); traces with the enhanced-telemetry beta, whose `gen_ai.request.attempt`
 * span events are the only report of a retry that later succeeded (docs/real-agents.md).
 */
export function claudeCodeEnv(target: TelemetryTarget, identity?: AttemptIdentity): Record<string, string> {
  return {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_TRACES_EXPORTER: 'otlp',
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: target.endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${target.token}`,
    ...(identity ? { OTEL_RESOURCE_ATTRIBUTES: resourceAttributes(identity) } : {}),
  };
}

/** Names that, set by the agent's own `env:`, send Claude Code's logs elsewhere than the receiver. */
const LOGS_ELSEWHERE = ['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS'];
/** What takes Claude Code's logs to the receiver, marked with the attempt they belong to. */
const LOGS_HERE = [
  'CLAUDE_CODE_ENABLE_TELEMETRY',
  'OTEL_LOGS_EXPORTER',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_RESOURCE_ATTRIBUTES',
];

/**
 * Whether Claude Code started with `env` sends its logs where `ours` (claudeCodeEnv) points them,
 * marked with the attempt: the agent's own `env:` wins over what Hivewatch sets, so an agent that
 * turned telemetry off or sent it elsewhere is not expected to be heard from.
 */
export function claudeCodeExportsAsSet(env: Readonly<Record<string, string>>, ours: Readonly<Record<string, string>>): boolean {
  return LOGS_HERE.every((name) => env[name] === ours[name]) && LOGS_ELSEWHERE.every((name) => env[name] === undefined);
}

const tomlString = (text: string): string => JSON.stringify(text);

/** Codex's `[otel]` table for ~/.codex/config.toml: its log exporter over OTLP/HTTP JSON. */
export function codexOtelToml(target: TelemetryTarget): string {
  return [
    '[otel]',
    'environment = "hivewatch"',
    'log_user_prompt = false',
    `exporter = { otlp-http = { endpoint = ${tomlString(`${target.endpoint}/v1/logs`)}, protocol = "json", headers = { "Authorization" = ${tomlString(`Bearer ${target.token}`)} } } }`,
    '',
  ].join('\n');
}

/** The same exporter as `codex -c` overrides (one per key), for a Codex Hivewatch runs itself. */
export function codexOtelOverrides(target: TelemetryTarget): string[] {
  return [
    '-c',
    `otel.exporter={ otlp-http = { endpoint = ${tomlString(`${target.endpoint}/v1/logs`)}, protocol = "json", headers = { "Authorization" = ${tomlString(`Bearer ${target.token}`)} } } }`,
    '-c',
    'otel.environment="hivewatch"',
  ];
}

const shellQuote = (value: string): string => (/^[A-Za-z0-9_./:=-]+$/.test(value) ? value : `"${value.replace(/(["\\$`])/g, '\\$1')}"`);

/** What `hivewatch otel-env` prints for an agent. */
export function otelEnvText(agent: OtelAgent, target: TelemetryTarget): string {
  if (agent === 'codex-cli') {
    return `# Add to ~/.codex/config.toml (or .codex/config.toml of a project), then start codex:\n${codexOtelToml(target)}`;
  }
  const lines = Object.entries(claudeCodeEnv(target)).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
  return `# Run in the shell that starts claude (eval "$(hivewatch otel-env)"):\n${lines.join('\n')}\n`;
}
