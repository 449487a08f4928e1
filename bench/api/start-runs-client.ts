import { Agent, request } from 'node:http';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';

/**
 * The client side of bench/api/serve-load.bench.ts, in its own process as an operator's script would
 * be: `count` POSTs to `path` of a running `serve` with `inFlight` of them outstanding at a time,
 * each with the same JSON body. Prints one JSON line: the wall time from the first request to the
 * last answer, each answer's latency, and any status other than the expected one.
 *
 * Usage: node start-runs-client.js <origin> <token> <path> <body JSON> <count> <inFlight> <expected status>
 */

const { origin, token, path, body, count, inFlight, expected } = clientArgsOrExit(
  'start-runs-client.js',
  '<origin> <token> <path> <body JSON> <count> <inFlight> <expected status>',
  () => {
    const args = clientArgs(process.argv.slice(2), ['origin', 'token', 'path', 'body', 'count', 'inFlight', 'expected']);
    return {
      ...args,
      count: wholeNumber(args.count, 'count', 1),
      inFlight: wholeNumber(args.inFlight, 'inFlight', 1),
      expected: wholeNumber(args.expected, 'expected status', 100),
    };
  },
);
const url = new URL(path, origin);
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });

function post(): Promise<{ status: number; ms: number; text: string }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const latencies: number[] = [];
const unexpected: string[] = [];
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < count) {
      next += 1;
      const answer = await post();
      latencies.push(answer.ms);
      if (answer.status !== expected && unexpected.length < 5) unexpected.push(`${answer.status} ${answer.text.slice(0, 200)}`);
    }
  }),
);
const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
agent.destroy();
process.stdout.write(`${JSON.stringify({ elapsedMs, latencies, unexpected })}\n`);
