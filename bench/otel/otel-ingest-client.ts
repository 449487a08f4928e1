import { Agent, request } from 'node:http';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';

/**
 * The exporter side of the ingest bench (bench/otel/otel.bench.ts), in its own process as a real
 * exporter would be: `records` OTLP log records in payloads of `batch`, spread over `sessions`
 * Claude Code sessions (one API request or API error each, a tenth of them errors), sent over
 * `connections` keep-alive connections as fast as the receiver takes them. A 429 or 503 is sent
 * again after its Retry-After, as an OTLP exporter does (up to 20 times). Every body is built
 * before the clock starts: what is timed is the receiver, not this process's JSON.
 * Prints one JSON line: what was sent, what was refused in the end, and the time from the first
 * request to the last answer.
 */

interface Args {
  endpoint: string;
  token: string;
  records: number;
  batch: number;
  sessions: number;
  connections: number;
}

interface Sent {
  payloads: number;
  records: number;
  /** Payloads answered something else than 200 in the end. */
  refused: number;
  /** 429 / 503 answers, each followed by a retry. */
  retries: number;
  elapsedMs: number;
  /** The longest any one request waited for its answer. */
  slowestAnswerMs: number;
}

function payload(from: number, count: number, sessions: number, now: number): string {
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

function post(agent: Agent, args: Args, body: string): Promise<{ status: number; retryAfter: number; ms: number }> {
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

async function send(args: Args): Promise<Sent> {
  const now = Date.now();
  const bodies: string[] = [];
  for (let from = 0; from < args.records; from += args.batch) bodies.push(payload(from, Math.min(args.batch, args.records - from), args.sessions, now));
  const agent = new Agent({ keepAlive: true, maxSockets: args.connections });
  let next = 0;
  let refused = 0;
  let retries = 0;
  let slowestAnswerMs = 0;
  const start = performance.now();
  const connection = async (): Promise<void> => {
    for (let at = next++; at < bodies.length; at = next++) {
      for (let attempt = 0; ; attempt += 1) {
        const answer = await post(agent, args, bodies[at] as string);
        slowestAnswerMs = Math.max(slowestAnswerMs, answer.ms);
        if ((answer.status !== 429 && answer.status !== 503) || attempt >= 20) {
          if (answer.status !== 200) refused += 1;
          break;
        }
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, answer.retryAfter * 1000));
      }
    }
  };
  await Promise.all(Array.from({ length: args.connections }, connection));
  const elapsedMs = performance.now() - start;
  agent.destroy();
  return { payloads: bodies.length, records: args.records, refused, retries, elapsedMs, slowestAnswerMs };
}

const sent = await send(
  clientArgsOrExit('otel-ingest-client.js', '<endpoint> <token> <records> <batch> <sessions> <connections>', () => {
    const args = clientArgs(process.argv.slice(2), ['endpoint', 'token', 'records', 'batch', 'sessions', 'connections']);
    return {
      ...args,
      records: wholeNumber(args.records, 'records', 1),
      batch: wholeNumber(args.batch, 'batch', 1),
      sessions: wholeNumber(args.sessions, 'sessions', 1),
      connections: wholeNumber(args.connections, 'connections', 1),
    };
  }),
);
process.stdout.write(`${JSON.stringify(sent)}\n`);
