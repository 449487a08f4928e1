import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { HivewatchEvent } from '../../base/events.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';

/**
 * A real webhook receiver for the alert tests: an HTTP server on 127.0.0.1 that keeps every
 * request and answers as the test scripts it (a status, with headers, or `hang`: never answer).
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A status, a status with headers (`Retry-After`), or `hang`: never answer. */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

export class TestReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Answers in order; when empty, 200. */
  readonly answers: Answer[] = [];
  private readonly hanging: ServerResponse[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.requests.push({ path: request.url ?? '', headers: request.headers, body: text === '' ? null : (JSON.parse(text) as unknown) });
        const answer = this.answers.shift() ?? 200;
        if (answer === 'hang') {
          this.hanging.push(response);
          return;
        }
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  bodies<T = Record<string, unknown>>(): T[] {
    return this.requests.map((r) => r.body as T);
  }

  /** Answers every request held by `hang` with `status` now. */
  release(status = 200): void {
    for (const response of this.hanging.splice(0)) response.writeHead(status).end();
  }

  async stop(): Promise<void> {
    for (const response of this.hanging.splice(0)) response.destroy();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A clock a test moves by hand: the engine's backoff is due when the test says so, not after a sleep. */
export class ManualClock {
  constructor(public value: number) {}
  readonly now = (): number => this.value;
  advance(ms: number): void {
    this.value += ms;
  }
}

/** A flow whose one task crashes on its only attempt: a run that fails for good (the fake runtime). */
export const FAILING_FLOW = `agent worker:
  runtime: "fake"

session: worker
  prompt: "Fail for good"
  simulate: "crash"
`;

/** Writes `flows/fails.prose` (FAILING_FLOW) under `dir`; the user flows folder, where `user/fails.prose` starts it. */
export function failingFlowsDir(dir: string): string {
  const userFlowsDir = join(dir, 'flows');
  mkdirSync(userFlowsDir);
  writeFileSync(join(userFlowsDir, 'fails.prose'), FAILING_FLOW);
  return userFlowsDir;
}

/** A run of flows/a.prose started at `start` that fails after one timed-out attempt: what a rule on failed runs fires for. */
export function failedRunEvents(runId: string, start: number): HivewatchEvent[] {
  return new JournalBuilder(runId, { flow: 'flows/a.prose', start })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT' }] }])
    .fail().events;
}
