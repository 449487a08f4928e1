import { Agent } from 'node:http';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';
import { claudeLogsPayload, postLogs } from '../otel/otlp-logs.js';

/**
 * The OTLP stream beside the history bench's loaded figures (history-perf.ts, load-beside.ts), in
 * its own process as an agent's exporter would be: `rate` Claude Code log records a second, a
 * payload of `batch` every `batch / rate` seconds, over at most `connections` keep-alive
 * connections, until SIGTERM. A tick that finds every connection still waiting is counted late
 * and its payload sent when one frees, so the figure says whether the server kept up. It prints
 * `streaming` once the receiver has taken a payload; on SIGTERM one JSON line (what was sent,
 * accepted, refused and late, over how long), and exits.
 */

interface Args {
  endpoint: string;
  token: string;
  rate: number;
  batch: number;
  connections: number;
}

interface Streamed {
  records: number;
  accepted: number;
  refused: number;
  late: number;
  elapsedMs: number;
}

const SESSIONS = 20;

function stream(args: Args): { stop: () => Promise<Streamed> } {
  const agent = new Agent({ keepAlive: true, maxSockets: args.connections });
  const periodMs = (1000 * args.batch) / args.rate;
  const start = performance.now();
  const totals: Streamed = { records: 0, accepted: 0, refused: 0, late: 0, elapsedMs: 0 };
  let inFlight = 0;
  let backlog = 0;
  let from = 0;
  const inFlightDone = new Set<Promise<void>>();
  const sendOne = (): void => {
    inFlight += 1;
    const body = claudeLogsPayload(from, args.batch, SESSIONS, Date.now());
    from += args.batch;
    totals.records += args.batch;
    const done = postLogs(agent, args, body).then((answer) => {
      if (answer.status === 200 && totals.accepted === 0) process.stdout.write('streaming\n');
      if (answer.status === 200) totals.accepted += args.batch;
      else totals.refused += args.batch;
      inFlight -= 1;
      inFlightDone.delete(done);
      if (backlog > 0) {
        backlog -= 1;
        sendOne();
      }
    });
    inFlightDone.add(done);
  };
  let ticks = 0;
  let timer: NodeJS.Timeout | null = null;
  // Each tick is due at start + n · period, so a slow tick does not push the later ones back.
  const tick = (): void => {
    ticks += 1;
    if (inFlight < args.connections) sendOne();
    else {
      totals.late += 1;
      backlog += 1;
    }
    timer = setTimeout(tick, Math.max(0, start + ticks * periodMs - performance.now()));
  };
  tick();
  return {
    stop: async () => {
      if (timer !== null) clearTimeout(timer);
      backlog = 0;
      await Promise.all([...inFlightDone]);
      agent.destroy();
      return { ...totals, elapsedMs: performance.now() - start };
    },
  };
}

const running = stream(
  clientArgsOrExit('otlp-stream-client.js', '<endpoint> <token> <records-per-second> <batch> <connections>', () => {
    const args = clientArgs(process.argv.slice(2), ['endpoint', 'token', 'rate', 'batch', 'connections']);
    return {
      ...args,
      rate: wholeNumber(args.rate, 'records-per-second', 1),
      batch: wholeNumber(args.batch, 'batch', 1),
      connections: wholeNumber(args.connections, 'connections', 1),
    };
  }),
);
process.once('SIGTERM', () => {
  void running.stop().then((totals) => {
    process.stdout.write(`${JSON.stringify(totals)}\n`);
    process.exit(0);
  });
});
