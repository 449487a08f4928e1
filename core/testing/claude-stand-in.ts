import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCliStandIn } from './cli-stand-in.js';

/**
 * A stand-in for the `claude` CLI that prints what Claude Code 2.1.x prints with
 * `--output-format json` (the shape of agents-real/fixtures/claude-code/*.result-json-out*):
 * attempt 1 (HIVEWATCH_ATTEMPT) ends with an API 500 after spending $0.17, attempt 2 succeeds for
 * $0.25. The run it makes costs $0.42, $0.17 of it on a failed attempt (the usage and cost journeys).
 */
const SCRIPT = `const attempt = Number(process.env.HIVEWATCH_ATTEMPT || '1');
const usage = (input, output) => ({ input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });
const failed = { type: 'result', subtype: 'success', is_error: true, api_error_status: 500, num_turns: 1, session_id: 'stand-in-1',
  result: 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', total_cost_usd: 0.17, usage: usage(1200, 80), permission_denials: [] };
const ok = { type: 'result', subtype: 'success', is_error: false, num_turns: 1, session_id: 'stand-in-2', result: 'Summarised 3 open issues.',
  total_cost_usd: 0.25, usage: usage(1500, 240), permission_denials: [] };
// With telemetry on (as the preset passes it), the successful attempt also reports its request as Claude Code's
// api_request does, with the same cost: the spend is reported twice and must be counted once.
async function exportTelemetry() {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (process.env.CLAUDE_CODE_ENABLE_TELEMETRY !== '1' || !endpoint || attempt === 1) return;
  const attr = (key, value) => ({ key, value: typeof value === 'number' ? { doubleValue: value } : { stringValue: String(value) } });
  const pairs = (process.env.OTEL_RESOURCE_ATTRIBUTES || '').split(',').filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')), decodeURIComponent(p.slice(p.indexOf('=') + 1))]);
  const record = { timeUnixNano: String(Date.now() * 1e6), body: { stringValue: 'claude_code.api_request' }, attributes: [
    attr('event.name', 'api_request'), attr('session.id', 'stand-in-session-' + process.pid), attr('prompt.id', 'p1'), attr('model', 'stand-in'),
    attr('duration_ms', 900), attr('cost_usd', 0.25), attr('input_tokens', 1500), attr('output_tokens', 240), attr('cache_read_tokens', 0), attr('cache_creation_tokens', 0)] };
  const body = { resourceLogs: [{ resource: { attributes: [attr('service.name', 'claude-code'), attr('service.version', 'stand-in'), ...pairs.map(([k, v]) => attr(k, v))] },
    scopeLogs: [{ scope: { name: 'stand-in' }, logRecords: [record] }] }] };
  const headers = { 'content-type': 'application/json' };
  for (const p of (process.env.OTEL_EXPORTER_OTLP_HEADERS || '').split(',').filter((h) => h.includes('='))) headers[p.slice(0, p.indexOf('='))] = decodeURIComponent(p.slice(p.indexOf('=') + 1));
  const res = await fetch(endpoint.replace(/\\/$/, '') + '/v1/logs', { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) process.stderr.write('stand-in: telemetry export answered ' + res.status + '\\n');
}
exportTelemetry().catch((e) => process.stderr.write('stand-in: ' + e.message + '\\n')).finally(() => {
  process.stdout.write(JSON.stringify(attempt === 1 ? failed : ok) + '\\n');
  process.exitCode = attempt === 1 ? 1 : 0;
});
`;

/** Writes the stand-in into `dir`; returns its executable, named `claude` (a flow's `command:`). */
export function writeClaudeStandIn(dir: string): string {
  return writeCliStandIn(dir, 'claude', SCRIPT, 'cost');
}

/** A flow whose one session runs `command` through the claude-code preset, retried once. */
export function costFlowSource(command: string): string {
  return [
    '# A claude-code session whose first attempt fails after spending $0.17 (core/testing/claude-stand-in.ts).',
    'agent claude:',
    '  runtime: "claude-code"',
    `  command: "${command}"`,
    '',
    'session: claude',
    '  prompt: "Summarise the open issues"',
    '  retry: 1',
    '',
  ].join('\n');
}

/** Writes the stand-in and the flow that runs it into `dir`; returns the flow's path. */
export function writeCostFlow(dir: string, name = 'cost.prose'): string {
  const flow = join(dir, name);
  writeFileSync(flow, costFlowSource(writeClaudeStandIn(dir)));
  return flow;
}
