import { Agent, request } from 'node:http';

/**
 * An OTLP/HTTP exporter as the OpenTelemetry SDKs behave, for tests of the receiver: a payload is
 * POSTed on a few keep-alive sockets with a 10 s timeout per request (OTEL_EXPORTER_OTLP_TIMEOUT's
 * default), and a 429 or 503 is retried after its Retry-After. `secondMs` is how long one
 * Retry-After second lasts for it (tests shorten it; the header's value is what they check).
 */

const EXPORTER_TIMEOUT_MS = 10_000;

export interface ExporterAnswer {
  /** 0: no answer (the connection failed or the 10 s timeout passed). */
  status: number;
  retryAfter: string | null;
  timedOut: boolean;
}

export interface ExportOutcome {
  /** Every answer the payload got, in order; the last one is final. */
  answers: ExporterAnswer[];
}

export class TestExporter {
  /** How many answers of each status came so far (0: none came), over every payload. */
  readonly answered = new Map<number, number>();
  private readonly agent: Agent;

  constructor(
    private readonly endpoint: string,
    private readonly token: string,
    private readonly options: { sockets: number; secondMs: number; maxTries: number },
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: options.sockets });
  }

  /** Sends `body` until it is answered with anything but 429 / 503, or `maxTries` answers came. */
  async export(body: string): Promise<ExportOutcome> {
    const answers: ExporterAnswer[] = [];
    for (;;) {
      const answer = await this.post(body);
      answers.push(answer);
      this.answered.set(answer.status, (this.answered.get(answer.status) ?? 0) + 1);
      const retry = answer.status === 429 || answer.status === 503;
      if (!retry || answers.length >= this.options.maxTries) return { answers };
      const seconds = Number(answer.retryAfter);
      await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * this.options.secondMs));
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<ExporterAnswer> {
    return new Promise((resolve) => {
      const url = new URL('/v1/logs', this.endpoint);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${this.token}`, 'content-length': Buffer.byteLength(body) };
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: this.agent, headers, timeout: EXPORTER_TIMEOUT_MS },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, timedOut: false }),
          );
        },
      );
      req.on('timeout', () => {
        req.destroy();
        resolve({ status: 0, retryAfter: null, timedOut: true });
      });
      req.on('error', () => resolve({ status: 0, retryAfter: null, timedOut: false }));
      req.end(body);
    });
  }
}

/**
 * An OTLP/JSON logs payload of `count` Claude Code API requests (one attempt each in the journal),
 * numbered from `from` so every payload differs, spread over `sessions` sessions.
 */
export function apiRequestLogs(from: number, count: number, sessions: number, nowMs: number): string {
  const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  const logRecords = Array.from({ length: count }, (_, i) => ({
    timeUnixNano: `${nowMs}000000`,
    body: { stringValue: 'claude_code.api_request' },
    attributes: [
      attr('session.id', `flood-session-${(from + i) % sessions}`),
      attr('model', 'claude-sonnet-4-5'),
      attr('duration_ms', 100),
      attr('cost_usd', 0),
      attr('event.sequence', from + i),
    ],
  }));
  return JSON.stringify({ resourceLogs: [{ resource: { attributes: [attr('service.name', 'claude-code')] }, scopeLogs: [{ logRecords }] }] });
}
