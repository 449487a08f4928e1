import { Agent, request } from 'node:http';

/**
 * The exporter side of the OTLP flood (bench/otel.bench.ts), in its own process as a real
 * exporter would be: `rate` log records per second for `seconds`, in payloads of `batch`
 * records spread over `sessions` Claude Code sessions (one API request or API error each).
 * Prints one JSON line: payloads and records sent, and how many were refused.
 */

interface Args {
  endpoint: string;
  token: string;
  rate: number;
  seconds: number;
  batch: number;
  sessions: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function payload(from: number, batch: number, sessions: number): string {
  const now = Date.now();
  const s = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  const logRecords = [];
  for (let i = 0; i < batch; i++) {
    const n = from + i;
    const failed = n % 10 === 0;
    logRecords.push({
      timeUnixNano: `${now}000000`,
      body: { stringValue: failed ? 'claude_code.api_error' : 'claude_code.api_request' },
      attributes: [
        s('session.id', `flood-session-${n % sessions}`),
        s('model', 'claude-sonnet-4-5'),
        s('duration_ms', 100 + (n % 50)),
        ...(failed ? [s('status_code', n % 20 === 0 ? '529' : '500'), s('error', 'Overloaded'), s('attempt', 1)] : [s('cost_usd', 0)]),
        s('event.sequence', n),
      ],
    });
  }
  return JSON.stringify({ resourceLogs: [{ resource: { attributes: [s('service.name', 'claude-code')] }, scopeLogs: [{ logRecords }] }] });
}

/** Posts like an OTLP exporter: a 429 / 503 is retried after its Retry-After (up to 20 times). */
async function send(args: Args, body: string): Promise<{ status: number; retries: number }> {
  for (let retries = 0; ; retries++) {
    const { status, retryAfter } = await post(args, body);
    if ((status !== 429 && status !== 503) || retries >= 20) return { status, retries };
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
  }
}

function post(args: Args, body: string): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve) => {
    const url = new URL('/v1/logs', args.endpoint);
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${args.token}`, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 1) || 1 }));
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: 1 }));
    req.end(body);
  });
}

async function flood(args: Args): Promise<void> {
  const payloads = Math.round((args.rate * args.seconds) / args.batch);
  const interval = (args.batch / args.rate) * 1000;
  const start = Date.now();
  const pending: Promise<{ status: number; retries: number }>[] = [];
  for (let p = 0; p < payloads; p++) {
    const due = start + p * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(args, payload(p * args.batch, args.batch, args.sessions)));
  }
  const results = await Promise.all(pending);
  const refused = results.filter((r) => r.status !== 200).length;
  const retries = results.reduce((n, r) => n + r.retries, 0);
  process.stdout.write(`${JSON.stringify({ payloads, records: payloads * args.batch, refused, retries, elapsedMs: Date.now() - start })}\n`);
  agent.destroy();
}

const [endpoint, token, rate, seconds, batch, sessions] = process.argv.slice(2);
void flood({ endpoint: endpoint as string, token: token as string, rate: Number(rate), seconds: Number(seconds), batch: Number(batch), sessions: Number(sessions) });
