import { Agent } from 'node:http';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';
import { claudeLogsPayload, postLogs } from './otlp-logs.js';

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

async function send(args: Args): Promise<Sent> {
  const now = Date.now();
  const bodies: string[] = [];
  for (let from = 0; from < args.records; from += args.batch)
    bodies.push(claudeLogsPayload(from, Math.min(args.batch, args.records - from), args.sessions, now));
  const agent = new Agent({ keepAlive: true, maxSockets: args.connections });
  let next = 0;
  let refused = 0;
  let retries = 0;
  let slowestAnswerMs = 0;
  const start = performance.now();
  const connection = async (): Promise<void> => {
    for (let at = next++; at < bodies.length; at = next++) {
      for (let attempt = 0; ; attempt += 1) {
        const answer = await postLogs(agent, args, bodies[at] as string);
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
