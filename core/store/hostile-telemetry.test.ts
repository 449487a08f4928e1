import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TelemetryRecord } from '../otel/receive/decode.js';
import { OtelIngester } from '../otel/receive/ingest.js';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { postgresBinaries, postgresMissing, TestDatabases } from './testing/test-databases.js';
import { FORTY_DIGITS, MEGABYTE } from './testing/hostile-journal.js';
import { skipTitle } from '../testing/skip.js';

/**
 * Hostile telemetry: on PostgreSQL a NUL in an exporter's payload, a 1 MB `session.id`
 * ("index row requires 12048 bytes") and `1e308` or a 40-digit number ("invalid input syntax
 * for type bigint") each failed the whole payload (the receiver answered 500), where SQLite took
 * them. What reaches the store is decoded records (S3 bounds the payloads themselves): both
 * engines now journal them, the same way, and a later payload of the session finds its run.
 */

const T0 = 1_763_900_000_000;
const SESSION = `${'s'.repeat(MEGABYTE)}-session`;

const record = (name: string, timeMs: number, attributes: TelemetryRecord['attributes']): TelemetryRecord => ({
  name,
  timeMs,
  timeGiven: String(timeMs * 1_000_000),
  timeField: 'timeUnixNano',
  attributes: { 'session.id': SESSION, 'prompt.id': 'p\u0000', ...attributes },
  resource: { 'service.name': 'claude-code', 'service.version': '2.0\u0000' },
  signal: 'logs',
  body: null,
});

const firstPayload = [
  record('claude_code.user_prompt', T0, { prompt: 'hello \u0000' }),
  record('claude_code.api_error', FORTY_DIGITS, { error: 'overloaded \u0000 \ud800', status_code: 529, duration_ms: 1e308, attempt: Number.NaN }),
  record('claude_code.api_request', T0 + 1_000, { duration_ms: 12.5, cost_usd: Number.POSITIVE_INFINITY }),
];
const secondPayload = [record('claude_code.tool_result', T0 + 2_000, { success: 'false', tool_name: 'Bash\u0000', error: 'x'.repeat(MEGABYTE) })];

const dirs: string[] = [];
const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const engines: { name: string; location: () => Promise<string> }[] = [
  {
    name: 'SQLite',
    location: () => {
      const dir = mkdtempSync(join(tmpdir(), 'hw-hostile-otel-'));
      dirs.push(dir);
      return Promise.resolve(join(dir, 'hw.db'));
    },
  },
  ...(postgresBinaries ? [{ name: 'PostgreSQL', location: () => databases.fresh('hostile_otel') }] : []),
];
const readBack = new Map<string, string>();

async function summary(store: HivewatchStore): Promise<unknown> {
  const { runs } = await store.listRuns();
  const detail = await store.getRun(runs[0]!.id);
  return { runs, detail, events: await store.getEvents(runs[0]!.id), codes: await store.errorCounts({ by: 'code' }), groups: await store.errorGroups() };
}

describe.each(engines)('hostile telemetry on $name', (engine) => {
  it('journals payloads with a NUL, a 1 MB session id, 1e308, 40 digits and NaN; the next payload finds its session', async () => {
    const store = await openStore({ path: await engine.location() });
    try {
      const ingester = new OtelIngester(store, { now: () => T0 + 5_000 });
      expect(await ingester.ingest(firstPayload, 'digest-1')).toMatchObject({ records: 3, duplicate: false });
      expect(await ingester.ingest(secondPayload, 'digest-2')).toMatchObject({ records: 1, duplicate: false });
      const { runs } = await store.listRuns();
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ flow: 'external:claude-code', status: 'running', errorCount: 2 });
      const detail = (await store.getRun(runs[0]!.id))!;
      expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([
        ['failed', 'RUNTIME_RATE_LIMIT'],
        ['succeeded', null],
      ]);
      const [failure] = (await store.listErrors({ limit: 10 })).errors.filter((e) => e.code === 'RUNTIME_RATE_LIMIT');
      expect(failure?.message).toContain('overloaded \uFFFD \uFFFD');
      expect(await store.replayRun(runs[0]!.id)).toMatchObject({ ok: true });
      expect(await store.verifyAggregates()).toMatchObject({ ok: true });
      readBack.set(engine.name, JSON.stringify(await summary(store)));
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!postgresBinaries)(skipTitle('hostile telemetry on both engines (needs PostgreSQL)', postgresMissing), () => {
  it('reads back identically', () => {
    expect([...readBack.keys()].sort()).toEqual(['PostgreSQL', 'SQLite']);
    expect(readBack.get('PostgreSQL')).toBe(readBack.get('SQLite'));
  });
});
