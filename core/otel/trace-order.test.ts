import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../store/index.js';
import type { TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';

/**
 * Claude Code 2.1.332 exports a run's traces before its logs (seen with `claude -p … --resume`,
 * e2e/real-claude-session.test.ts), and its `gen_ai.request.attempt` span events name no prompt.
 * A retried try that arrives after the open prompt's request ended is the next prompt's, not an
 * extra failure of the one before. Records below have the real ones' shape, trimmed.
 */

let dir: string;
let store: HivewatchStore;
const T0 = 1795674969000;
const SESSION = '04fe9077-c1ed-41be-9ae2-90e40706bcf6';
const resource = { 'service.name': 'claude-code', 'service.version': '2.1.332' };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-trace-order-'));
  store = await openStore({ path: join(dir, 'hw.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const log = (name: string, at: number, promptId: string, extra: Record<string, unknown> = {}): TelemetryRecord => ({
  name,
  timeMs: T0 + at,
  timeGiven: null,
  timeField: 'timeUnixNano',
  signal: 'logs',
  body: null,
  resource,
  attributes: { 'session.id': SESSION, 'prompt.id': promptId, 'event.name': name.replace('claude_code.', ''), ...extra },
});
/** Try `n` of a request that took `of` tries and failed with `status` (null: it succeeded in the end). */
const tryOf = (n: number, of: number, at: number, status: number | null): TelemetryRecord => {
  const span = {
    'session.id': SESSION,
    'span.type': 'llm_request',
    attempt: of,
    success: status === null,
    ...(status !== null ? { status_code: status, error: 'rate limited' } : {}),
  };
  return {
    name: 'gen_ai.request.attempt',
    timeMs: T0 + at,
    timeGiven: null,
    timeField: 'timeUnixNano',
    signal: 'traces',
    body: null,
    resource,
    attributes: { ...span, attempt: n },
    spanAttributes: span,
  };
};

describe('a retried try exported before its prompt', () => {
  it("joins the next prompt when the open prompt's request already ended", async () => {
    const ingester = new OtelIngester(store, { now: () => T0 + 60_000 });
    // First run: its trace, then its logs (a 429 retried, then success).
    await ingester.ingest([tryOf(1, 2, 100, null), tryOf(2, 2, 1200, null)], 'p1');
    await ingester.ingest([log('claude_code.user_prompt', 50, 'a'), log('claude_code.api_request', 1300, 'a', { duration_ms: 100 })], 'p2');
    // Second run (--resume): its trace first, then its logs (two 429s: given up).
    await ingester.ingest([tryOf(1, 2, 5100, 429), tryOf(2, 2, 6200, 429)], 'p3');
    await ingester.ingest(
      [
        log('claude_code.user_prompt', 5050, 'b'),
        log('claude_code.api_error', 6300, 'b', { status_code: 429, error: 'rate limited', attempt: 2, duration_ms: 100 }),
      ],
      'p4',
    );
    const run = (await store.listRuns({ limit: 5 })).runs[0]!;
    const detail = (await store.getRun(run.id))!;
    expect(detail.tasks.map((t) => [t.name, t.attempts])).toEqual([
      ['prompt 1', 2],
      ['prompt 2', 2],
    ]);
    expect(detail.attempts.map((a) => [a.taskId, a.attempt, a.status])).toEqual([
      ['prompt-1', 1, 'failed'],
      ['prompt-1', 2, 'succeeded'],
      ['prompt-2', 1, 'failed'],
      ['prompt-2', 2, 'failed'],
    ]);
  });
});
