import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import { CLI_PINS } from '../../agents-real/pins.js';
import type { CliName } from '../../agents-real/pins.js';
import type { HivewatchEvent } from '../base/events.js';
import { openSqliteStore } from '../store/index.js';
import { sqliteContractStore } from '../store/sqlite/async-store.js';
import type { HivewatchStore } from '../store/contract.js';
import { decodeOtlp, type OtlpEncoding } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';

/**
 * Tokens and cost of external sessions, from what the real CLIs sent (agents-real/fixtures:
 * the pinned Claude Code and Codex, the version in each recording's run.json).
 */

let dir: string;
let store: HivewatchStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-usage-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function attemptEnds(cli: CliName, id: string): Promise<{ events: HivewatchEvent[]; cliVersion: string }> {
  const f = readFixture(cli, id);
  if (!f) throw new Error(`no recording ${cli}/${id}`);
  const now = Date.parse(f.run.recordedAt) + 10 * 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: 60_000 });
  for (const e of f.exports) {
    await ingester.ingest(decodeOtlp(e.signal as 'logs' | 'traces', e.encoding as OtlpEncoding, e.payload), `${id}#${e.seq}`);
  }
  const runs = (await store.listRuns({ limit: 10 })).runs;
  expect(runs).toHaveLength(1);
  const events = await store.getEvents(runs[0]!.id);
  return { events: events.filter((e) => e.type === 'attemptSucceeded' || e.type === 'attemptFailed'), cliVersion: f.run.cliVersion };
}

const usageOf = (e: HivewatchEvent | undefined): unknown => (e && (e.type === 'attemptSucceeded' || e.type === 'attemptFailed') ? e.usage : undefined);

describe('Claude Code api_request usage', () => {
  it.each(['text.json-out.otlp-json.default-retries', 'text.plain-out.otlp-protobuf.default-retries'])(
    '%s: cost and the four token kinds on the attempt',
    async (id) => {
      const { events, cliVersion } = await attemptEnds('claude-code', id);
      expect(cliVersion).toBe('2.1.332');
      expect(events.map((e) => e.type)).toEqual(['attemptSucceeded']);
      expect(usageOf(events[0])).toEqual({ source: 'telemetry', inputTokens: 12, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.000228 });
    },
  );

  it('a request that failed after retries reports no usage: the failed attempt has none', async () => {
    const { events } = await attemptEnds('claude-code', 'rate-limit.json-out.otlp-json.retries-2');
    const failed = events.filter((e) => e.type === 'attemptFailed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.map(usageOf)).toEqual(failed.map(() => undefined));
  });
});

describe('Codex sse_event response.completed usage', () => {
  it.each(['text.json-out.otlp-json.default-retries', 'text.plain-out.otlp-protobuf.default-retries'])(
    '%s: the attempt ends with the token counts of the second response.completed (cost unknown)',
    async (id) => {
      const { events, cliVersion } = await attemptEnds('codex-cli', id);
      expect(cliVersion).toBe(CLI_PINS['codex-cli'].version);
      expect(events.map((e) => e.type)).toEqual(['attemptSucceeded']);
      expect(usageOf(events[0])).toEqual({ source: 'telemetry', inputTokens: 12, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 });
    },
  );

  it('a stream that failed and was retried: the failed attempt has no usage, the one that completed has it', async () => {
    const { events } = await attemptEnds('codex-cli', 'rate-limit-then-ok.json-out.otlp-json.default-retries');
    expect(events.length).toBeGreaterThan(1);
    const last = events.at(-1);
    expect(last?.type).toBe('attemptSucceeded');
    expect(usageOf(last)).toMatchObject({ inputTokens: 12, outputTokens: 9 });
    expect(events.slice(0, -1).every((e) => e.type === 'attemptFailed' && e.usage === undefined)).toBe(true);
  });
});
