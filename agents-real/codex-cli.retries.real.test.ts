import { describe, expect, it } from 'vitest';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import { runId } from './specs.js';
import { linesOfKind, logsNamed, spanEntries } from './otlp/telemetry.js';

/**
 * Who retries in Codex: two layers. The HTTP layer retries a request (`request_max_retries`,
 * default 4: 5 requests) on a 5xx, not on a 429/401/403; the stream layer starts the turn's
 * request again (`stream_max_retries`, default 5: "Reconnecting... n/5") after any failure,
 * each time with a fresh HTTP layer. Counted by the stub, with the exec-json lines and telemetry.
 */

const install = await installedCli('codex-cli');

describe.skipIf(!install.ok)(liveTitle('codex-cli', install, 'API errors and its own retries'), () => {
  const runs = liveRuns('codex-cli', install, ['rate-limit', 'rate-limit-then-ok', 'overloaded', 'server-error', 'unauthorized', 'forbidden', 'stream-error']);

  const count = (id: string): number => runs.get(id).apiRequests.length;
  const errors = (id: string): string[] => linesOfKind(runs.get(id).result.stdout, 'error').map((l) => String(l.message));
  const failure = (id: string): string =>
    String((linesOfKind(runs.get(id).result.stdout, 'turn.failed')[0]?.error as { message?: string } | undefined)?.message);

  it('every run stays on loopback (the built-in provider tries api.chatgpt.com, which the guard refuses); a failed turn exits 1, a recovered one 0', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect([...new Set(record.egress)], record.id).toEqual(spec.builtInProvider ? ['api.chatgpt.com:443'] : []);
      expect(record.result.exitCode, record.id).toBe(spec.scenario === 'rate-limit-then-ok' ? 0 : 1);
    }
  });

  it('429 with the built-in openai provider: 13 requests per turn — 7 WebSocket handshakes, then 6 HTTPS requests after "Falling back from WebSockets to HTTPS"', () => {
    const record = runs.get('rate-limit.json-out.otlp-json.default-retries.built-in-provider');
    // The stub answers no WebSocket upgrade (404): each handshake is a GET of /v1/responses.
    const handshakes = record.otherRequests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/responses')).length;
    expect({ handshakes, https: record.apiRequests.length }).toEqual({ handshakes: 7, https: 6 });
    expect(record.result.stdout).toContain('Falling back from WebSockets to HTTPS transport');
    expect(failure(record.id)).toBe('exceeded retry limit, last status: 429 Too Many Requests, request id: req_stub_0001');
  });

  it('429 with the defaults: 6 requests (the stream layer, 1 + 5; the HTTP layer does not retry a 429), "Reconnecting... n/5"', () => {
    const id = 'rate-limit.json-out.otlp-json.default-retries';
    expect(count(id)).toBe(6);
    expect(errors(id).slice(0, 5)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `Reconnecting... ${n}/5 (exceeded retry limit, last status: 429 Too Many Requests, request id: req_stub_0001)`),
    );
    expect(failure(id)).toBe('exceeded retry limit, last status: 429 Too Many Requests, request id: req_stub_0001');
    // `attempt` counts the HTTP layer's tries of one stream attempt: always 0 here.
    const attempts = logsNamed(runs.get(id).otlp, 'codex.api_request').map((e) => [e.attributes.attempt, e.attributes['http.response.status_code']]);
    expect(attempts.length).toBeGreaterThan(0);
    expect(new Set(attempts.map((a) => a.join(' ')))).toEqual(new Set(['0 429']));
  });

  it('request_max_retries=0 and stream_max_retries=0: one request for a 429, 500, 529, 401 or a failed stream', () => {
    for (const scenario of ['rate-limit', 'server-error', 'overloaded', 'unauthorized', 'stream-error']) {
      expect(count(`${scenario}.json-out.otlp-json.retries-0`), scenario).toBe(1);
    }
  });

  it('a failing exec does not flush its exporters: with hour-long batch delays nothing arrives (the default 1 s delay sends most)', () => {
    expect(runs.get('rate-limit.json-out.otlp-json.default-retries.export-at-exit').otlp).toEqual([]);
    expect(count('rate-limit.json-out.otlp-json.default-retries.export-at-exit')).toBe(6);
  });

  it('429 then success: 2 requests, exit 0; both logged with attempt 0, the retry only in the trace (codex.retry, layer stream)', () => {
    const id = 'rate-limit-then-ok.json-out.otlp-json.default-retries';
    expect(runs.get(id).apiRequests.map((r) => r.answer)).toEqual(['error 429', 'text']);
    expect(errors(id)).toEqual(['Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests, request id: req_stub_0001)']);
    const requests = logsNamed(runs.get(id).otlp, 'codex.api_request').map((e) => [e.attributes.attempt, e.attributes['http.response.status_code']]);
    expect(requests).toEqual([
      [0, 429],
      [0, 200],
    ]);
    const retries = spanEntries(runs.get(id).otlp)
      .flatMap((s) => s.events)
      .filter((e) => e.attributes['event.name'] === 'codex.retry');
    expect(retries.map((e) => [e.attributes['retry.layer'], e.attributes['retry.attempt']])).toEqual([['stream', '1']]);
  });

  it('500 with the defaults: 30 requests (6 stream attempts × 5 HTTP tries), attempt restarts at 0, the body text replaced', () => {
    const id = 'server-error.json-out.otlp-json.default-retries';
    expect(count(id)).toBe(30);
    expect(failure(id)).toBe('We’re currently experiencing high demand, which may cause temporary errors.');
    const attempts = new Set(logsNamed(runs.get(id).otlp, 'codex.api_request').map((e) => e.attributes.attempt));
    expect(attempts).toEqual(new Set([0, 1, 2, 3, 4]));
    const layers = new Set(
      spanEntries(runs.get(id).otlp).flatMap((s) =>
        s.events.filter((e) => e.attributes['event.name'] === 'codex.retry').map((e) => e.attributes['retry.layer']),
      ),
    );
    expect(layers).toEqual(new Set(['http', 'stream']));
  });

  it('500 and 529 with both retries at 1: 4 requests ((1 + 1) × (1 + 1)), "Reconnecting... 1/1"', () => {
    for (const scenario of ['server-error', 'overloaded']) {
      const id = `${scenario}.json-out.otlp-json.retries-1`;
      expect(count(id), id).toBe(4);
      expect(errors(id)[0], id).toMatch(/^Reconnecting\.\.\. 1\/1 /);
    }
    expect(failure('overloaded.json-out.otlp-json.retries-1')).toMatch(
      /^unexpected status 529 <unknown status code>: Overloaded, url: http:\/\/127\.0\.0\.1:\d+\/v1\/responses/,
    );
  });

  it('401 and 403 are retried by the stream layer too (6 requests each); a 401 logs codex.auth_recovery', () => {
    expect(count('unauthorized.json-out.otlp-json.default-retries')).toBe(6);
    expect(failure('unauthorized.json-out.otlp-json.default-retries')).toMatch(/^unexpected status 401 Unauthorized: Incorrect API key provided/);
    expect(logsNamed(runs.get('unauthorized.json-out.otlp-json.default-retries').otlp, 'codex.auth_recovery')[0]?.attributes).toMatchObject({
      'auth.outcome': 'recovery_not_run',
      'auth.recovery_reason': 'not_chatgpt_auth',
    });
    expect(count('forbidden.json-out.otlp-json.default-retries')).toBe(6);
    expect(failure('forbidden.json-out.otlp-json.default-retries')).toMatch(/^unexpected status 403 Forbidden: /);
  });

  it('response.failed: 6 requests by default; logged as codex.sse_event kind response.failed with the raw event as error.message', () => {
    const id = 'stream-error.json-out.otlp-json.default-retries';
    expect(count(id)).toBe(6);
    expect(failure(id)).toBe('stream disconnected before completion: The model failed to generate a response.');
    const failed = logsNamed(runs.get(id).otlp, 'codex.sse_event').filter((e) => e.attributes['event.kind'] === 'response.failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(JSON.parse(String(failed[0]?.attributes['error.message']))).toMatchObject({ type: 'response.failed' });
  });

  it('plain output says it on stderr: "ERROR: Reconnecting... n/5", then the failure', () => {
    const record = runs.get('rate-limit.plain-out.otlp-protobuf.default-retries');
    expect(record.apiRequests).toHaveLength(6);
    expect(record.result.stdout).toBe('');
    expect(record.result.stderr).toContain('ERROR: Reconnecting... 5/5');
    expect(record.result.stderr).toContain('ERROR: exceeded retry limit, last status: 429 Too Many Requests');
  });

  shapeTests('codex-cli', runs);
});
