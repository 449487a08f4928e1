import { describe, expect, it } from 'vitest';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests, type LiveRuns } from './live.js';
import { runId } from './specs.js';
import { linesOfKind, logsNamed, spansNamed } from './otlp/telemetry.js';

/**
 * Who retries, and what Claude Code says about it: the number of requests the stub counted for
 * each failure, with Claude Code's own retries at their default and with CLAUDE_CODE_MAX_RETRIES
 * set; the stream-json lines, the exit code and the telemetry events of each.
 */

const install = await installedCli('claude-code');

describe.skipIf(!install.ok)(liveTitle('claude-code', install, 'API errors and its own retries'), () => {
  const runs = liveRuns('claude-code', install, [
    'rate-limit',
    'rate-limit-then-ok',
    'overloaded',
    'server-error',
    'unauthorized',
    'forbidden',
    'stream-error',
  ]);

  const answers = (id: string): string[] => runs.get(id).apiRequests.map((r) => r.answer);
  const retryLines = (id: string): Record<string, unknown>[] => linesOfKind(runs.get(id).result.stdout, 'system/api_retry');
  const result = (id: string): Record<string, unknown> => linesOfKind(runs.get(id).result.stdout, 'result/success')[0] ?? {};

  it('every run stays on loopback and exits 1 on a failure, 0 after a recovered one', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(record.result.exitCode, record.id).toBe(spec.scenario === 'rate-limit-then-ok' ? 0 : 1);
    }
  });

  it('429 then success, default retries: 2 requests, exit 0, one api_retry line (max_retries 10), and no api_error event at all', () => {
    const id = 'rate-limit-then-ok.json-out.otlp-json.default-retries';
    expect(answers(id)).toEqual(['error 429', 'text']);
    expect(retryLines(id)).toEqual([
      expect.objectContaining({ attempt: 1, max_retries: 10, error_status: 429, error: 'rate_limit', retry_delay_ms: expect.any(Number) }),
    ]);
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_error')).toEqual([]);
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_request')).toHaveLength(1);
    // Only the trace shows the retried request: one gen_ai.request.attempt event per request.
    const [llm] = spansNamed(runs.get(id).otlp, 'claude_code.llm_request');
    expect(llm?.events.map((e) => [e.name, e.attributes.attempt])).toEqual([
      ['gen_ai.request.attempt', 1],
      ['gen_ai.request.attempt', 2],
    ]);
    expect(llm?.attributes).toMatchObject({ attempt: 2, success: true });
  });

  it('429 with CLAUDE_CODE_MAX_RETRIES=2: 3 requests; one api_error (attempt 3) and one api_retries_exhausted, sent once it gives up', () => {
    const id = 'rate-limit.json-out.otlp-json.retries-2';
    expect(answers(id)).toEqual(['error 429', 'error 429', 'error 429']);
    expect(retryLines(id).map((l) => [l.attempt, l.max_retries, l.error_status])).toEqual([
      [1, 2, 429],
      [2, 2, 429],
    ]);
    expect(result(id)).toMatchObject({ is_error: true, api_error_status: 429, result: expect.stringMatching(/^API Error: Request rejected \(429\)/) });
    const errors = logsNamed(runs.get(id).otlp, 'claude_code.api_error');
    expect(errors.map((e) => [e.attributes.status_code, e.attributes.attempt])).toEqual([[429, 3]]);
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_retries_exhausted').map((e) => e.attributes.total_attempts)).toEqual([3]);
    // Its trace (3 gen_ai.request.attempt events in every recording) is not asserted: a failed run's trace is not sure to arrive.
  });

  it('CLAUDE_CODE_MAX_RETRIES=0 makes one request per failure (429, 500, 401, 529), and no api_retries_exhausted', () => {
    for (const scenario of ['rate-limit', 'server-error', 'unauthorized', 'overloaded']) {
      const id = `${scenario}.json-out.otlp-json.retries-0`;
      expect(answers(id), id).toHaveLength(1);
      expect(
        logsNamed(runs.get(id).otlp, 'claude_code.api_error').map((e) => e.attributes.attempt),
        id,
      ).toEqual([1]);
      expect(logsNamed(runs.get(id).otlp, 'claude_code.api_retries_exhausted'), id).toEqual([]);
    }
  });

  it('Claude Code flushes its exporters when it exits 1: with hour-long export intervals the api_error still arrives', () => {
    const id = 'rate-limit.json-out.otlp-json.retries-2.export-at-exit';
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_error')).toHaveLength(1);
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_retries_exhausted')).toHaveLength(1);
  });

  it('529 with default retries: 3 requests (its own 529 limit, not 10); api_error has no status_code, "Repeated 529 Overloaded errors"', () => {
    const id = 'overloaded.json-out.otlp-json.default-retries';
    expect(answers(id)).toEqual(['error 529', 'error 529', 'error 529']);
    expect(retryLines(id).map((l) => [l.max_retries, l.error])).toEqual([
      [10, 'overloaded'],
      [10, 'overloaded'],
    ]);
    const [error] = logsNamed(runs.get(id).otlp, 'claude_code.api_error');
    expect(error?.attributes).toMatchObject({ error: 'Repeated 529 Overloaded errors', attempt: 3 });
    expect(error?.attributes).not.toHaveProperty('status_code');
    expect(result(id)).toMatchObject({ api_error_status: 529, result: expect.stringMatching(/^API Error: Repeated 529 Overloaded errors/) });
  });

  it('500 with CLAUDE_CODE_MAX_RETRIES=2: 3 requests, api_retry error "server_error", api_error status 500', () => {
    const id = 'server-error.json-out.otlp-json.retries-2';
    expect(answers(id)).toEqual(['error 500', 'error 500', 'error 500']);
    expect(retryLines(id).map((l) => l.error)).toEqual(['server_error', 'server_error']);
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_error')[0]?.attributes).toMatchObject({ status_code: 500, attempt: 3 });
  });

  it('401 is retried like a 429 (3 requests with CLAUDE_CODE_MAX_RETRIES=2); 403 is not (1 request with the defaults)', () => {
    const unauthorized = 'unauthorized.json-out.otlp-json.retries-2';
    expect(answers(unauthorized)).toEqual(['error 401', 'error 401', 'error 401']);
    expect(retryLines(unauthorized).map((l) => l.error)).toEqual(['authentication_failed', 'authentication_failed']);
    expect(result(unauthorized)).toMatchObject({ api_error_status: 401, result: 'Invalid API key · Fix external API key' });
    const forbidden = 'forbidden.json-out.otlp-json.default-retries';
    expect(answers(forbidden)).toEqual(['error 403']);
    expect(result(forbidden)).toMatchObject({ api_error_status: 403, result: expect.stringMatching(/^Failed to authenticate\. API Error: 403/) });
    expect(logsNamed(runs.get(forbidden).otlp, 'claude_code.api_error')[0]?.attributes).toMatchObject({ status_code: 403, attempt: 1 });
  });

  it('an error event inside a 200 stream: retried as a 529, then one request without streaming (4 requests; 2 with retries off)', () => {
    const id = 'stream-error.json-out.otlp-json.default-retries';
    expect(runs.get(id).apiRequests.map((r) => [r.answer, r.stream])).toEqual([
      ['stream-error', true],
      ['stream-error', true],
      ['stream-error', true],
      ['error 529', false],
    ]);
    expect(result(id)).toMatchObject({ api_error_status: 529 });
    expect(logsNamed(runs.get(id).otlp, 'claude_code.api_error')[0]?.attributes).toMatchObject({ error: 'Repeated 529 Overloaded errors' });
    expect(runs.get('stream-error.json-out.otlp-json.retries-0').apiRequests.map((r) => r.stream)).toEqual([true, false]);
  });

  it('plain text and --output-format json say the same as stream-json', () => {
    expect(runs.get('rate-limit.plain-out.otlp-protobuf.retries-2').result.stdout).toMatch(/^API Error: Request rejected \(429\)/);
    expect(JSON.parse(runs.get('overloaded.result-json-out.otlp-json.default-retries').result.stdout)).toMatchObject({
      type: 'result',
      is_error: true,
      api_error_status: 529,
    });
    expectSameRequests(runs, 'server-error', 'retries-2');
  });

  shapeTests('claude-code', runs);
});

/** The three output modes of one scenario made the same requests. */
function expectSameRequests(runs: LiveRuns, scenario: string, retries: string): void {
  const counts = ['json-out.otlp-json', 'plain-out.otlp-protobuf', 'result-json-out.otlp-json'].map(
    (v) => runs.get(`${scenario}.${v}.${retries}`).apiRequests.length,
  );
  expect(new Set(counts).size, `${scenario}: ${counts.join(', ')} requests`).toBe(1);
}
