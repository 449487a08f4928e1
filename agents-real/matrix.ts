import type { CliName } from './pins.js';
import { type OutputMode, type OtlpProtocol, type RunSpec, type ScenarioId } from './specs.js';

/**
 * Which runs the fixtures hold and the live suites repeat. Every scenario runs in the CLI's
 * JSON event stream with OTLP/JSON, and again in plain text with OTLP/protobuf (both output modes
 * and both exporter protocols, without the product of all four); Claude Code also in
 * `--output-format json`, the one result object the `claude-code` preset reads. Retries: the
 * CLI's defaults where a run with them stays short, else a small number that still shows the
 * CLI's own retrying, plus runs with retries off; runs with the defaults that take minutes (the
 * default backoff) are `slow`: recorded, not repeated by the suites.
 */

type Retries = RunSpec['retries'];

interface Row {
  scenario: ScenarioId;
  retries: Retries;
  /** Only the JSON stream with OTLP/JSON (a scenario that shows one printed text, not a format). */
  jsonOnly?: boolean;
  /** Further runs of the scenario in the JSON stream with OTLP/JSON only. */
  also?: { retries: Retries; slow?: boolean; exportAtExit?: boolean; networkDefaults?: boolean; builtInProvider?: boolean }[];
}

const CLAUDE_ROWS: Row[] = [
  { scenario: 'text', retries: 'default', also: [{ retries: 'default', networkDefaults: true }] },
  { scenario: 'tool', retries: 'default' },
  { scenario: 'rate-limit', retries: 2, also: [{ retries: 0 }, { retries: 2, exportAtExit: true }, { retries: 'default', slow: true }] },
  { scenario: 'rate-limit-then-ok', retries: 'default' },
  { scenario: 'overloaded', retries: 'default', also: [{ retries: 0 }] },
  { scenario: 'server-error', retries: 2, also: [{ retries: 0 }, { retries: 'default', slow: true }] },
  { scenario: 'unauthorized', retries: 2, also: [{ retries: 0 }, { retries: 'default', slow: true }] },
  { scenario: 'forbidden', retries: 'default' },
  { scenario: 'hang', retries: 0, also: [{ retries: 'default', slow: true }] },
  { scenario: 'stall', retries: 0, also: [{ retries: 'default', slow: true }] },
  { scenario: 'usage-limit', retries: 'default' },
  { scenario: 'usage-limit-next-day', retries: 'default', jsonOnly: true },
  { scenario: 'stream-error', retries: 'default', also: [{ retries: 0 }] },
  { scenario: 'subagent', retries: 'default' },
  { scenario: 'subagent-fails', retries: 0, jsonOnly: true },
  { scenario: 'subagent-nested', retries: 'default', jsonOnly: true },
  { scenario: 'refused', retries: 'default', jsonOnly: true },
  { scenario: 'permission-hook-denies', retries: 'default', jsonOnly: true },
];

const CODEX_ROWS: Row[] = [
  { scenario: 'text', retries: 'default', also: [{ retries: 'default', networkDefaults: true }] },
  { scenario: 'tool', retries: 'default' },
  {
    scenario: 'rate-limit',
    retries: 'default',
    also: [{ retries: 0 }, { retries: 'default', exportAtExit: true }, { retries: 'default', builtInProvider: true }],
  },
  { scenario: 'rate-limit-then-ok', retries: 'default' },
  { scenario: 'overloaded', retries: 1, also: [{ retries: 0 }, { retries: 'default', slow: true }] },
  { scenario: 'server-error', retries: 1, also: [{ retries: 0 }, { retries: 'default' }] },
  { scenario: 'unauthorized', retries: 'default', also: [{ retries: 0 }] },
  { scenario: 'forbidden', retries: 'default' },
  { scenario: 'hang', retries: 'default' },
  { scenario: 'stall', retries: 0, also: [{ retries: 'default' }] },
  { scenario: 'usage-limit', retries: 'default' },
  { scenario: 'usage-limit-next-day', retries: 'default', jsonOnly: true },
  { scenario: 'stream-error', retries: 'default', also: [{ retries: 0 }] },
  { scenario: 'refused', retries: 'default', jsonOnly: true },
  { scenario: 'subagent', retries: 'default' },
  { scenario: 'subagent-nested', retries: 'default', jsonOnly: true },
];

const VARIANTS: Record<CliName, { output: OutputMode; protocol: OtlpProtocol }[]> = {
  'claude-code': [
    { output: 'json', protocol: 'json' },
    { output: 'plain', protocol: 'protobuf' },
    { output: 'result-json', protocol: 'json' },
  ],
  'codex-cli': [
    { output: 'json', protocol: 'json' },
    { output: 'plain', protocol: 'protobuf' },
  ],
};

function specsOf(cli: CliName, rows: Row[]): RunSpec[] {
  const out: RunSpec[] = [];
  for (const row of rows) {
    const variants = row.jsonOnly ? VARIANTS[cli].filter((v) => v.output === 'json') : VARIANTS[cli];
    for (const variant of variants) out.push({ cli, scenario: row.scenario, ...variant, retries: row.retries });
    for (const extra of row.also ?? []) {
      const flags = {
        ...(extra.slow ? { slow: true } : {}),
        ...(extra.exportAtExit ? { exportAtExit: true } : {}),
        ...(extra.networkDefaults ? { networkDefaults: true } : {}),
        ...(extra.builtInProvider ? { builtInProvider: true } : {}),
      };
      out.push({ cli, scenario: row.scenario, output: 'json', protocol: 'json', retries: extra.retries, ...flags });
    }
  }
  return out;
}

export const MATRIX: Record<CliName, RunSpec[]> = {
  'claude-code': specsOf('claude-code', CLAUDE_ROWS),
  'codex-cli': specsOf('codex-cli', CODEX_ROWS),
};
