import type { CliName } from './pins.js';

/**
 * One run of a CLI against a provider stub: which scenario the stub plays, how the CLI prints
 * (its JSON event stream or plain text; Claude Code also its single result object, what the
 * `claude-code` preset reads), how it exports telemetry, and whether its own retries keep their
 * defaults or are set. The matrix of runs the fixtures hold and the suites repeat is in
 * matrix.ts.
 */

export type ScenarioId =
  | 'text'
  | 'tool'
  | 'rate-limit'
  | 'rate-limit-then-ok'
  | 'overloaded'
  | 'server-error'
  | 'unauthorized'
  | 'forbidden'
  | 'hang'
  | 'stall'
  | 'usage-limit'
  | 'usage-limit-next-day'
  | 'stream-error'
  | 'subagent'
  | 'subagent-fails'
  | 'subagent-nested'
  | 'refused'
  | 'permission-hook-denies';

export const SCENARIOS: Record<ScenarioId, string> = {
  text: 'success with text',
  tool: 'success with a tool call (the tool runs, its result goes back, then text)',
  'rate-limit': '429 with retry-after: 1, on every request',
  'rate-limit-then-ok': '429 with retry-after: 1, then success',
  overloaded: '529 overloaded, on every request',
  'server-error': '500, on every request',
  unauthorized: '401, on every request',
  forbidden: '403, on every request',
  hang: 'no answer at all (no status line)',
  stall: 'the stream starts (message_start / response.created), then nothing',
  'usage-limit': "a subscription's usage limit with a reset time two hours ahead (the same day, unless that crosses midnight)",
  'usage-limit-next-day': "a subscription's usage limit with a reset time 26 hours ahead: always another day, so the CLI prints a date too",
  'stream-error': 'a failure inside a 200 stream (Anthropic: an error event; OpenAI: response.failed)',
  subagent: "the agent starts a subagent (Claude Code's Agent tool), the subagent answers with text, then the agent does",
  'subagent-fails': "the agent starts a subagent, whose one request gets a 500 (the CLI's retries off), then the agent ends with text",
  'subagent-nested': 'three levels of subagents: the agent starts one, which starts one, which starts one; the innermost answers, then each above it',
  refused:
    'the agent asks for a command its permissions refuse (Claude Code: Bash not allowed in print mode; Codex: escalated permissions under approval policy never), then ends with text',
  'permission-hook-denies':
    'the agent asks for a command its permissions leave to a person; a PermissionRequest hook holds the prompt 6 s (a periodic log export happens meanwhile), then denies it; the agent ends with text',
};

/** `json`: stream-json / exec --json; `plain`: text; `result-json`: claude --output-format json. */
export type OutputMode = 'json' | 'plain' | 'result-json';
export type OtlpProtocol = 'json' | 'protobuf';

export interface RunSpec {
  cli: CliName;
  scenario: ScenarioId;
  output: OutputMode;
  protocol: OtlpProtocol;
  /** The CLI's own retries: its defaults, or this many (docs/real-agents.md names the settings). */
  retries: 'default' | number;
  /** Minutes long (the CLI's default backoff): recorded by the recorder, not run by the suites. */
  slow?: boolean;
  /**
   * The exporters' periodic intervals set to an hour, so only what the CLI flushes when it ends
   * arrives (otherwise the vendors' defaults: Claude Code 5 s for logs, the Rust SDK 1 s / 5 s).
   */
  exportAtExit?: boolean;
  /**
   * The vendor's defaults for update checks, analytics and plugin sync instead of the harness's
   * settings that turn them off: the runs that show the egress guard catching what they try.
   */
  networkDefaults?: boolean;
  /**
   * Codex only: the built-in `openai` provider pointed at the stub (`OPENAI_BASE_URL`) instead of
   * a custom provider: the one whose own retries a config cannot turn off.
   */
  builtInProvider?: boolean;
}

/** A stable name for a run: its fixture folder and its test's title. */
export function runId(spec: RunSpec): string {
  const retries = spec.retries === 'default' ? 'default-retries' : `retries-${spec.retries}`;
  const flags = `${spec.exportAtExit ? '.export-at-exit' : ''}${spec.networkDefaults ? '.network-defaults' : ''}${spec.builtInProvider ? '.built-in-provider' : ''}`;
  return `${spec.scenario}.${spec.output}-out.otlp-${spec.protocol}.${retries}${flags}`;
}
