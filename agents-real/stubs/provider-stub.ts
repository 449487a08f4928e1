import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenLoopback, redactedHeaders, type Loopback } from './loopback.js';

/**
 * What the Anthropic and OpenAI stubs share: a script (the n-th request to the API path gets the
 * n-th step; the last step answers every request after it), a record of every request with what
 * it was answered, and the two ways of not answering (hang: no status line at all; stall: the
 * stream starts and then nothing more is sent).
 */

export interface StubRequest {
  /** 1-based position among the API requests (the scripted path); 0 for any other path. */
  n: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The JSON body, or its text when it is not JSON. */
  body: unknown;
  /** The request's `stream` field (true, false, or null when absent). */
  stream: boolean | null;
  /** What the stub did: `text`, `tool`, `error 429`, `hang`, `stall`, `404`… */
  answer: string;
  /** The client went away before the answer was complete (its own timeout, or being killed). */
  clientClosedEarly: boolean;
}

export interface ProviderStub {
  readonly url: string;
  /** Every request, API and other, in arrival order. */
  readonly requests: readonly StubRequest[];
  /** Requests to the scripted API path: the number that proves who retried. */
  apiRequestCount(): number;
  otherRequests(): StubRequest[];
  /** Resolves once the n-th API request has arrived (used to time the harness's own kill). */
  reached(n: number): Promise<void>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface Answer {
  /** Recorded as the request's `answer`. */
  label: string;
  /** Writes the answer; for hang and stall it leaves the response open. */
  write(res: ServerResponse): void;
}

/**
 * Requests told apart by who sent them (a CLI's concurrent threads), each sender with its own
 * script: the n-th request of a sender gets its n-th step, whatever the other senders' requests
 * did meanwhile. A request whose sender has no script of its own takes `steps` by its position.
 */
export interface StubLanes<Step> {
  of(headers: Readonly<Record<string, string>>): string | null;
  steps: Readonly<Record<string, readonly Step[]>>;
}

export interface StubOptions<Step> {
  /** The path whose POSTs are scripted (`/v1/messages`, `/v1/responses`). */
  apiPath: string;
  steps: readonly Step[];
  lanes?: StubLanes<Step>;
  answer(step: Step, request: { body: Record<string, unknown>; stream: boolean | null }): Answer;
}

function parseBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function jsonAnswer(label: string, status: number, payload: unknown, headers: Record<string, string> = {}): Answer {
  return {
    label,
    write: (res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    },
  };
}

/** A 200 event stream of whole frames; `open` leaves it unfinished (a stall after those frames). */
export function sseAnswer(label: string, frames: string[], options: { open?: boolean; headers?: Record<string, string> } = {}): Answer {
  return {
    label,
    write: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...options.headers });
      for (const frame of frames) res.write(frame);
      if (!options.open) res.end();
    },
  };
}

/** No status line, no headers: the connection stays silent until the client gives up. */
export const HANG: Answer = { label: 'hang', write: () => undefined };

export async function startProviderStub<Step>(options: StubOptions<Step>): Promise<ProviderStub> {
  if (options.steps.length === 0) throw new Error('a provider stub needs at least one step');
  const requests: StubRequest[] = [];
  let apiCount = 0;
  const laneCounts = new Map<string, number>();
  const stepFor = (record: StubRequest): Step => {
    const lane = options.lanes?.of(record.headers) ?? null;
    const laneSteps = lane === null ? undefined : options.lanes?.steps[lane];
    if (lane === null || !laneSteps || laneSteps.length === 0) return options.steps[Math.min(record.n, options.steps.length) - 1] as Step;
    const n = (laneCounts.get(lane) ?? 0) + 1;
    laneCounts.set(lane, n);
    return laneSteps[Math.min(n, laneSteps.length) - 1] as Step;
  };
  const waiting: { n: number; resolve: () => void }[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = parseBody(raw);
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const stream = typeof fields.stream === 'boolean' ? fields.stream : null;
    const scripted = req.method === 'POST' && url.pathname === options.apiPath;
    const record: StubRequest = {
      n: scripted ? ++apiCount : 0,
      method: req.method ?? '',
      path: `${url.pathname}${url.search}`,
      headers: redactedHeaders(req.headers),
      body,
      stream,
      answer: '404',
      clientClosedEarly: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosedEarly = true;
    });
    if (!scripted) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `the stub answers POST ${options.apiPath} only` }));
      return;
    }
    const answer = options.answer(stepFor(record), { body: fields, stream });
    record.answer = answer.label;
    answer.write(res);
    for (const wait of waiting.filter((w) => w.n <= apiCount)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  };
  const server: Loopback = await listenLoopback(handle);
  return {
    url: server.url,
    requests,
    apiRequestCount: () => apiCount,
    otherRequests: () => requests.filter((r) => r.n === 0),
    reached: (n) => (apiCount >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))),
    idle: () => server.idle(),
    close: () => server.close(),
  };
}
