import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeOtlp, type TelemetryRecord } from './receive/decode.js';

/**
 * The receiver's queue for a test of what it answers and journals, not of when: its one-second
 * answer deadline (ingest-queue.ts) would turn a slow commit on a loaded machine into a 503 that
 * the test did not ask about. backpressure.test.ts tests the deadline itself.
 */
export const UNHURRIED_QUEUE = { answerWithinMs: 60_000 } as const;

/** The fixtures of docs/otel.md: `<name>.json` (OTLP/JSON) and `<name>.pb` (the same request as protobuf). */
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export function fixture(name: string, encoding: 'json' | 'protobuf'): Buffer {
  return readFileSync(join(FIXTURES, `${name}.${encoding === 'json' ? 'json' : 'pb'}`));
}

/**
 * One OTLP/JSON logs request of Claude Code's records, decoded: each `[event, attributes]` a log
 * record as Claude Code 2.1.332 builds one (body `claude_code.<event>`, `event.name` the bare
 * event, every value text), one second apart from `t0`.
 */
export function claudeCodeLogs(records: readonly [event: string, attributes: Record<string, string>][], session: string, t0: number): TelemetryRecord[] {
  const logRecords = records.map(([event, attributes], i) => ({
    timeUnixNano: `${(t0 + (i + 1) * 1000) * 1_000_000}`,
    body: { stringValue: `claude_code.${event}` },
    attributes: Object.entries({ 'event.name': event, 'session.id': session, ...attributes }).map(([key, value]) => ({ key, value: { stringValue: value } })),
  }));
  const body = {
    resourceLogs: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'claude-code' } },
            { key: 'service.version', value: { stringValue: '2.1.332' } },
          ],
        },
        scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords }],
      },
    ],
  };
  return decodeOtlp('logs', 'json', Buffer.from(JSON.stringify(body)));
}
