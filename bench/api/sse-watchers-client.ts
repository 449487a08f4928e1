import { Agent, get } from 'node:http';
import { createInterface } from 'node:readline';
import { clientArgs, clientArgsOrExit, wholeNumber } from '../harness/client-args.js';

/**
 * The watchers of bench/api/fanout.bench.ts, in their own process as a room of open windows would
 * be: `count` connections to `GET /api/stream`, each reading every message and checking that the
 * `hw` ids it sees only ever grow by one (no gap, no duplicate; a `reset` restarts the check).
 * Prints `ready` once every connection has had its `ready` event. Then, for each stdin line
 * `expect <id>`, waits until every connection has seen that id (at most `giveUpMs`) and prints
 * one JSON line: events per connection (min, max), order violations, resets, and those still short.
 *
 * Usage: node sse-watchers-client.js <origin> <token> <count> <giveUpMs>
 */

const { origin, token, count, giveUpMs } = clientArgsOrExit('sse-watchers-client.js', '<origin> <token> <count> <giveUpMs>', () => {
  const args = clientArgs(process.argv.slice(2), ['origin', 'token', 'count', 'giveUpMs']);
  return { ...args, count: wholeNumber(args.count, 'count', 1), giveUpMs: wholeNumber(args.giveUpMs, 'giveUpMs', 1) };
});
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

interface Watcher {
  lastId: number;
  events: number;
  outOfOrder: number;
  resets: number;
}

const watchers: Watcher[] = [];
let ready = 0;

function onMessage(watcher: Watcher, text: string): void {
  const event = /^event: (\w+)$/m.exec(text)?.[1];
  const id = Number(/^id: [0-9a-z]+\.(\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  if (event === 'ready') {
    watcher.lastId = id;
    ready += 1;
    if (ready === count) process.stdout.write('ready\n');
  } else if (event === 'reset') {
    watcher.resets += 1;
    watcher.lastId = id;
  } else if (event === 'hw') {
    if (id !== watcher.lastId + 1) watcher.outOfOrder += 1;
    watcher.lastId = id;
    watcher.events += 1;
  }
}

function open(): void {
  const watcher: Watcher = { lastId: 0, events: 0, outOfOrder: 0, resets: 0 };
  watchers.push(watcher);
  const url = new URL('/api/stream', origin);
  get({ host: url.hostname, port: url.port, path: url.pathname, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
    let pending = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      pending += chunk;
      let end = pending.indexOf('\n\n');
      while (end !== -1) {
        onMessage(watcher, pending.slice(0, end));
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
      }
    });
  }).on('error', (error) => {
    process.stderr.write(`watcher: ${error.message}\n`);
    process.exit(1);
  });
}

for (let i = 0; i < count; i += 1) open();

async function report(head: number): Promise<void> {
  const until = Date.now() + giveUpMs;
  while (watchers.some((w) => w.lastId < head) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  const events = watchers.map((w) => w.events);
  process.stdout.write(
    `${JSON.stringify({
      minEvents: Math.min(...events),
      maxEvents: Math.max(...events),
      outOfOrder: watchers.reduce((n, w) => n + w.outOfOrder, 0),
      resets: watchers.reduce((n, w) => n + w.resets, 0),
      short: watchers.filter((w) => w.lastId < head).length,
    })}\n`,
  );
}

for await (const line of createInterface({ input: process.stdin })) {
  const [word, value] = line.split(' ');
  if (word === 'expect') await report(Number(value));
}
agent.destroy();
process.exit(0);
