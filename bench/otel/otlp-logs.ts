import { type Agent, request } from 'node:http';

/** The OTLP log records the benches' exporters send (otel-ingest-client.ts, ../ui/otlp-stream-client.ts), and how they send them. */

/**
 * `count` Claude Code log records as one OTLP/HTTP JSON logs payload (the shape docs/otel.md cites):
 * records `from`…`from + count - 1` spread over `sessions` sessions, each an API request or, one
 * in ten, an API error (529 or 500), all stamped `now`.
 */
export function claudeLogsPayload(from: number, count: number, sessions: number, now: number): string {
  const s = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  const logRecords = [];
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const failed = n % 10 === 0;
    logRecords.push({
      timeUnixNano: `${now}000000`,
      body: { stringValue: failed ? 'claude_code.api_error' : 'claude_code.api_request' },
      attributes: [
        s('session.id', `ingest-session-${n % sessions}`),
        s('model', 'claude-sonnet-4-5'),
        s('duration_ms', 100 + (n % 50)),
        ...(failed ? [s('status_code', n % 20 === 0 ? '529' : '500'), s('error', 'Overloaded'), s('attempt', 1)] : [s('cost_usd', 0)]),
        s('event.sequence', n),
      ],
    });
  }
  return JSON.stringify({ resourceLogs: [{ resource: { attributes: [s('service.name', 'claude-code')] }, scopeLogs: [{ logRecords }] }] });
}

/** One payload to `/v1/logs`: its status (0 when the connection failed), Retry-After in seconds, and how long the answer took. */
export function postLogs(agent: Agent, args: { endpoint: string; token: string }, body: string): Promise<{ status: number; retryAfter: number; ms: number }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const url = new URL('/v1/logs', args.endpoint);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${args.token}`, 'content-length': Buffer.byteLength(body) };
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 1) || 1, ms: performance.now() - start }));
    });
    req.on('error', () => resolve({ status: 0, retryAfter: 1, ms: performance.now() - start }));
    req.end(body);
  });
}
