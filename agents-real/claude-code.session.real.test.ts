import { describe, expect, it } from 'vitest';
import { parseUsageLimit } from '../core/base/errors/usage-limit.js';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import { CLI_PINS } from './pins.js';
import { runId } from './specs.js';
import { linesOfKind, logEntries, logName, logsNamed, spansNamed } from './otlp/telemetry.js';

/**
 * Claude Code as it is (the pinned version, installed from npm) against the Anthropic stub: a
 * session that answers, one that runs a tool, one whose API never answers or stalls, and a
 * subscription's usage limit. Each test states a fact docs/real-agents.md relies on.
 */

const install = await installedCli('claude-code');
const VERSION = CLI_PINS['claude-code'].version;

describe.skipIf(!install.ok)(liveTitle('claude-code', install, 'sessions, timeouts, usage limit'), () => {
  const runs = liveRuns('claude-code', install, ['text', 'tool', 'hang', 'stall', 'usage-limit', 'usage-limit-next-day']);

  it('stays on loopback and sends the configured Authorization header with every export', () => {
    for (const spec of runs.specs.filter((s) => !s.networkDefaults)) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(record.otlp.length, `${record.id} exported nothing`).toBeGreaterThan(0);
      expect(
        record.otlp.every((e) => e.authorized),
        record.id,
      ).toBe(true);
      expect(new Set(record.otlp.map((e) => e.encoding)), record.id).toEqual(new Set([spec.protocol]));
    }
  });

  it('with its network defaults it tries api.anthropic.com, which the guard refuses: the empty lists above can fail', () => {
    const record = runs.get('text.json-out.otlp-json.default-retries.network-defaults');
    expect(record.egress.length).toBeGreaterThan(0);
    expect(new Set(record.egress)).toEqual(new Set(['api.anthropic.com:443']));
    expect(record.result.exitCode).toBe(0);
  });

  it('text: one request, exit 0, stream-json init/assistant/result; logs user_prompt, api_request, assistant_response', () => {
    const record = runs.get('text.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['text']);
    expect(record.result.exitCode).toBe(0);
    const result = linesOfKind(record.result.stdout, 'result/success')[0];
    expect(result).toMatchObject({ is_error: false, result: 'Hello from the Anthropic stub.', api_error_status: null });
    const names = logEntries(record.otlp).map(logName);
    expect(names).toEqual(expect.arrayContaining(['claude_code.user_prompt', 'claude_code.api_request', 'claude_code.assistant_response']));
    expect(names).not.toContain('claude_code.api_error');
  });

  it('log records: the body is claude_code.<event>, the event.name attribute the bare <event>; the resource decodes OTEL_RESOURCE_ATTRIBUTES', () => {
    const [request] = logsNamed(runs.get('text.json-out.otlp-json.default-retries').otlp, 'claude_code.api_request');
    expect(request?.body).toBe('claude_code.api_request');
    expect(request?.attributes['event.name']).toBe('api_request');
    expect(request?.eventName).toBe('');
    expect(request?.resource).toMatchObject({
      'service.name': 'claude-code',
      'service.version': VERSION,
      'hivewatch.run_id': 'run 7/a',
      'hivewatch.attempt': '2',
    });
    expect(request?.attributes).toMatchObject({ model: expect.any(String), duration_ms: expect.any(Number), request_id: 'req_stub_0001' });
  });

  it('traces (CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1): an interaction span and an llm_request span with one gen_ai.request.attempt event', () => {
    const record = runs.get('text.json-out.otlp-json.default-retries');
    expect(spansNamed(record.otlp, 'claude_code.interaction')).toHaveLength(1);
    const [llm] = spansNamed(record.otlp, 'claude_code.llm_request');
    expect(llm?.events).toEqual([{ name: 'gen_ai.request.attempt', attributes: { attempt: 1 } }]);
    expect(llm?.attributes).toMatchObject({ success: true, attempt: 1, 'hivewatch.run_id': 'run 7/a' });
  });

  it('plain and result-json print the answer; protobuf exports carry the same events', () => {
    const plain = runs.get('text.plain-out.otlp-protobuf.default-retries');
    expect(plain.result.stdout).toBe('Hello from the Anthropic stub.\n');
    expect(plain.result.exitCode).toBe(0);
    expect(logEntries(plain.otlp).map(logName)).toEqual(expect.arrayContaining(['claude_code.user_prompt', 'claude_code.api_request']));
    const single = runs.get('text.result-json-out.otlp-json.default-retries');
    expect(JSON.parse(single.result.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Hello from the Anthropic stub.' });
  });

  it('tool: two requests (the second carries the tool result), tool_decision and tool_result (success as the string "true")', () => {
    const record = runs.get('tool.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['tool', 'text']);
    expect(JSON.stringify(record.apiRequests[1]?.body)).toMatch(/"tool_use_id":"toolu_stub_0001".*hivewatch-tool-ran/);
    expect(record.result.exitCode).toBe(0);
    expect(logsNamed(record.otlp, 'claude_code.tool_decision')[0]?.attributes).toMatchObject({ tool_name: 'Bash', decision: 'accept' });
    expect(logsNamed(record.otlp, 'claude_code.tool_result')[0]?.attributes).toMatchObject({
      tool_name: 'Bash',
      success: 'true',
      duration_ms: expect.any(String),
    });
    expect(logsNamed(record.otlp, 'claude_code.api_request')).toHaveLength(2);
    expect(spansNamed(record.otlp, 'claude_code.tool')).toHaveLength(1);
  });

  it('hang: API_TIMEOUT_MS ends the one request; exit 1, "Request timed out", api_error without status_code', () => {
    const record = runs.get('hang.json-out.otlp-json.retries-0');
    expect(record.apiRequests.map((r) => [r.answer, r.clientClosedEarly])).toEqual([['hang', true]]);
    expect(record.result).toMatchObject({ exitCode: 1, killedBy: null });
    expect(linesOfKind(record.result.stdout, 'result/success')[0]).toMatchObject({
      is_error: true,
      api_error_status: null,
      result: expect.stringMatching(/^Request timed out/),
    });
    const [error] = logsNamed(record.otlp, 'claude_code.api_error');
    expect(error?.attributes).toMatchObject({ error: 'Request timed out.', attempt: 1 });
    expect(error?.attributes).not.toHaveProperty('status_code');
  });

  it('stall: after the byte-stream idle limit Claude Code asks again without streaming (2 requests), then times out', () => {
    const record = runs.get('stall.json-out.otlp-json.retries-0');
    expect(record.apiRequests.map((r) => [r.stream, r.clientClosedEarly])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect(record.result.exitCode).toBe(1);
    expect(logsNamed(record.otlp, 'claude_code.api_error')[0]?.attributes).toMatchObject({ error: 'Request timed out.', attempt: 1 });
    // Its trace ({attempt 1} twice in every recording) is not asserted: a loaded machine once lost it.
  });

  it('usage limit (OAuth sign-in): one request, not retried; a rate_limit_event line, api_error "usage_limit_reached" and a reset time Hivewatch reads', () => {
    const record = runs.get('usage-limit.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['error 429']);
    expect(record.result.exitCode).toBe(1);
    const reset = Number((record.script[0] as { headers: Record<string, string> }).headers['anthropic-ratelimit-unified-reset']);
    const [event] = linesOfKind(record.result.stdout, 'rate_limit_event');
    expect(event?.rate_limit_info).toMatchObject({ status: 'rejected', rateLimitType: 'five_hour' });
    expect((event?.rate_limit_info as { resetsAt: number }).resetsAt).toBe(reset);
    const result = linesOfKind(record.result.stdout, 'result/success')[0] ?? {};
    expect(result).toMatchObject({
      is_error: true,
      api_error_status: 429,
      api_error: 'usage_limit_reached',
      result: expect.stringMatching(/^You've hit your 5-hour limit · resets /),
    });
    // The preset's parser (core/runtimes/usage-limit.ts) reads the wall-clock reset to the end of the minute it names (the header's instant is on the minute).
    expect(parseUsageLimit(String(result.result), { now: record.startedAtMs, timeZone: 'UTC' })?.resetAt).toBe(reset * 1000 + 60_000);
    expect(logsNamed(record.otlp, 'claude_code.api_error')[0]?.attributes).toMatchObject({
      status_code: 429,
      error: "This request would exceed your account's rate limit.",
    });
  });

  it('weekly limit on another day: "You\'ve hit your weekly limit · resets <Mon D>, <time> (UTC)" that Hivewatch reads back', () => {
    const record = runs.get('usage-limit-next-day.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['error 429']);
    const reset = Number((record.script[0] as { headers: Record<string, string> }).headers['anthropic-ratelimit-unified-reset']);
    const result = linesOfKind(record.result.stdout, 'result/success')[0] ?? {};
    expect(result.result).toMatch(/^You've hit your weekly limit · resets [A-Z][a-z]{2} \d{1,2}, \d{1,2}(?::\d{2})?[ap]m \(UTC\)$/);
    expect(parseUsageLimit(String(result.result), { now: record.startedAtMs, timeZone: 'UTC' })?.resetAt).toBe(reset * 1000 + 60_000);
  });

  shapeTests('claude-code', runs);
});
