import { describe, expect, it } from 'vitest';
import { parseUsageLimit } from '../core/base/errors/usage-limit.js';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import { CLI_PINS } from './pins.js';
import type { RunRecord } from './cli/session.js';
import { runId } from './specs.js';
import { linesOfKind, logEntries, logName, logsNamed, spanEntries } from './otlp/telemetry.js';

/**
 * Codex as it is (the pinned version, installed from npm) against the OpenAI stub as a custom
 * model provider: a turn that answers, one that runs a command, a provider that never answers or
 * stalls, and a ChatGPT plan's usage limit. Each test states a fact docs/real-agents.md relies on.
 */

const install = await installedCli('codex-cli');
const VERSION = CLI_PINS['codex-cli'].version;

describe.skipIf(!install.ok)(liveTitle('codex-cli', install, 'turns, timeouts, usage limit'), () => {
  const runs = liveRuns('codex-cli', install, ['text', 'tool', 'hang', 'stall', 'usage-limit', 'usage-limit-next-day']);

  it('stays on loopback, and every export it makes carries the configured Authorization header', () => {
    for (const spec of runs.specs.filter((s) => !s.networkDefaults)) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(
        record.otlp.every((e) => e.authorized && e.encoding === spec.protocol),
        record.id,
      ).toBe(true);
    }
  });

  it('with its default config it tries GitHub and chatgpt.com (plugin sync, analytics), which the guard refuses', () => {
    const record = runs.get('text.json-out.otlp-json.default-retries.network-defaults');
    expect(record.egress.length).toBeGreaterThan(0);
    const known = ['github.com:443', 'api.github.com:443', 'chatgpt.com:443', 'ab.chatgpt.com:443'];
    expect(record.egress.filter((target) => !known.includes(target))).toEqual([]);
    expect(record.result.exitCode).toBe(0);
    // With [analytics] on, its metrics client logs a record of another kind: a text body, no attributes at all.
    const flushing = logEntries(record.otlp).filter((e) => e.body === 'flushing OTEL metrics');
    expect(flushing.length).toBeGreaterThan(0);
    expect(flushing[0]).toMatchObject({ attributes: {}, scope: 'codex_otel::metrics::client', timeUnixNano: '0' });
  });

  it('text: one request, exit 0, exec-json thread.started/turn.started/item.completed(agent_message)/turn.completed', () => {
    const record = runs.get('text.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['text']);
    expect(record.result.exitCode).toBe(0);
    expect(linesOfKind(record.result.stdout, 'item.completed/agent_message')[0]?.item).toMatchObject({ text: 'Hello from the OpenAI stub.' });
    expect(linesOfKind(record.result.stdout, 'turn.completed')[0]?.usage).toMatchObject({ input_tokens: 12, output_tokens: 9 });
    const names = logEntries(record.otlp).map(logName);
    expect(names).toEqual(expect.arrayContaining(['codex.conversation_starts', 'codex.user_prompt', 'codex.api_request', 'codex.sse_event']));
  });

  it('log records: empty body, eventName a source location, the name only in event.name; status and attempt ints, duration_ms a string', () => {
    const [request] = logsNamed(runs.get('text.json-out.otlp-json.default-retries').otlp, 'codex.api_request');
    expect(request?.body).toBe('');
    expect(request?.eventName).toMatch(/^event [\w/]+\.rs:\d+$/);
    expect(request?.attributes).toMatchObject({
      'event.name': 'codex.api_request',
      'http.response.status_code': 200,
      attempt: 0,
      duration_ms: expect.any(String),
    });
    expect(request?.attributes).toHaveProperty('conversation.id');
  });

  it('the resource: service.name codex_exec, environment as env, OTEL_RESOURCE_ATTRIBUTES kept percent-encoded', () => {
    const [first] = logEntries(runs.get('text.json-out.otlp-json.default-retries').otlp);
    expect(first?.resource).toMatchObject({
      'service.name': 'codex_exec',
      'service.version': VERSION,
      env: 'hivewatch',
      'hivewatch.run_id': 'run%207%2Fa',
      'hivewatch.attempt': '2',
    });
  });

  it('traces: the log events again as span events (named by source location, event.name inside)', () => {
    const events = spanEntries(runs.get('text.json-out.otlp-json.default-retries').otlp).flatMap((s) => s.events);
    const named = events.map((e) => e.attributes['event.name']);
    // Only events of spans that end mid-turn: the turn's own span (codex.turn_profile) ends as the
    // process flushes, and is missing from some runs' exports.
    expect(named).toEqual(expect.arrayContaining(['codex.api_request', 'codex.user_prompt']));
    expect(events.find((e) => e.attributes['event.name'] === 'codex.api_request')?.name).toMatch(/^event [\w/]+\.rs:\d+$/);
  });

  it('plain output: the answer on stdout, the session header and errors on stderr', () => {
    const record = runs.get('text.plain-out.otlp-protobuf.default-retries');
    expect(record.result.stdout).toBe('Hello from the OpenAI stub.\n');
    expect(record.result.stderr).toContain(`OpenAI Codex v${VERSION}`);
    expect(logEntries(record.otlp).map(logName)).toContain('codex.api_request');
  });

  it('tool: exec_command runs (item.started / item.completed command_execution), its output goes back in the 2nd request', () => {
    const record = runs.get('tool.json-out.otlp-json.default-retries');
    expect(record.apiRequests.map((r) => r.answer)).toEqual(['tool', 'text']);
    expect(JSON.stringify(record.apiRequests[1]?.body)).toMatch(
      /"function_call_output".*"call_id":"call_stub_0001"|"call_id":"call_stub_0001".*"function_call_output"/,
    );
    expect(linesOfKind(record.result.stdout, 'item.completed/command_execution')[0]?.item).toMatchObject({
      exit_code: 0,
      status: 'completed',
      aggregated_output: 'hivewatch-tool-ran\n',
    });
    expect(logsNamed(record.otlp, 'codex.tool_decision')[0]?.attributes).toMatchObject({ tool_name: 'exec_command', decision: 'approved', source: 'Config' });
    expect(logsNamed(record.otlp, 'codex.tool_result')[0]?.attributes).toMatchObject({ tool_name: 'exec_command', success: 'true', call_id: 'call_stub_0001' });
  });

  it('hang: nothing of Codex bounds a request that gets no answer; the harness kills it, the turn never ends', () => {
    const record = runs.get('hang.json-out.otlp-json.default-retries');
    expect(record.apiRequests).toHaveLength(1);
    expect(record.result.killedBy).toBe('harness');
    expect(linesOfKind(record.result.stdout, 'turn.failed')).toEqual([]);
    expect(linesOfKind(record.result.stdout, 'turn.started')).toHaveLength(1);
  });

  it('stall: stream_idle_timeout_ms ends the stream; retried by the stream layer (6 requests by default, 1 with stream_max_retries=0)', () => {
    expect(runs.get('stall.json-out.otlp-json.retries-0').apiRequests).toHaveLength(1);
    const record = runs.get('stall.json-out.otlp-json.default-retries');
    expect(record.apiRequests).toHaveLength(6);
    expect(record.result.exitCode).toBe(1);
    expect(linesOfKind(record.result.stdout, 'turn.failed')[0]?.error).toEqual({
      message: 'stream disconnected before completion: idle timeout waiting for SSE',
    });
    expect(linesOfKind(record.result.stdout, 'error').map((l) => l.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Reconnecting\.\.\. 1\/5 /)]),
    );
    const idle = logsNamed(record.otlp, 'codex.sse_event').filter((e) => e.attributes['error.message'] === 'idle timeout waiting for SSE');
    expect(idle.length).toBeGreaterThan(0);
  });

  // Codex prints the reset as a time when it falls on the day of the request in the CLI's zone
  // (TZ=UTC), else as a date and a time: which one depends on the hour the suite runs.
  const RESET_TIME = String.raw`\d{1,2}:\d{2} [AP]M`;
  const RESET_DATE = String.raw`[A-Z][a-z]{2} \d{1,2}(?:st|nd|rd|th), \d{4}`;
  const limitMessage = (record: RunRecord): string =>
    String((linesOfKind(record.result.stdout, 'turn.failed')[0]?.error as { message?: string } | undefined)?.message);
  const resetOf = (record: RunRecord): number => (record.script[0] as { error: { resets_at: number } }).error.resets_at * 1000;

  it('usage limit: one request, not retried, exit 1, "You’ve hit your usage limit … try again at <time>" that Hivewatch reads back', () => {
    const record = runs.get('usage-limit.json-out.otlp-json.default-retries');
    expect(record.apiRequests).toHaveLength(1);
    expect(record.result.exitCode).toBe(1);
    const message = limitMessage(record);
    expect(message).toMatch(new RegExp(`^You’ve hit your usage limit\\. .* try again at (?:${RESET_DATE} )?${RESET_TIME}\\.$`));
    expect(parseUsageLimit(message, { now: record.startedAtMs, timeZone: 'UTC' })?.resetAt).toBe(resetOf(record) + 60_000);
  });

  it('usage limit on another day: "… try again at <Mon Dth, YYYY> <time>" that Hivewatch reads back', () => {
    const record = runs.get('usage-limit-next-day.json-out.otlp-json.default-retries');
    expect(record.apiRequests).toHaveLength(1);
    const message = limitMessage(record);
    expect(message).toMatch(new RegExp(`^You’ve hit your usage limit\\. .* try again at ${RESET_DATE} ${RESET_TIME}\\.$`));
    expect(parseUsageLimit(message, { now: record.startedAtMs, timeZone: 'UTC' })?.resetAt).toBe(resetOf(record) + 60_000);
  });

  shapeTests('codex-cli', runs);
});
