import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openSqliteStore, type HivewatchStore } from '../../store/index.js';
import { DuplicatePayloadError } from '../../store/queries/external.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { decodeOtlp, type TelemetryRecord } from './decode.js';
import { OtelIngester, type Payload } from './ingest.js';
import { claudeCodeLogs } from '../testing.js';

/**
 * The queue's group commit (`ingestMany`): several payloads in one transaction must journal
 * exactly what the same payloads journal one at a time, and a payload ingested before (or one
 * the store refuses) must not decide the others' outcome.
 */

const T0 = 1763900000000;
let dir: string;
const stores: HivewatchStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-group-'));
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  rmSync(dir, { recursive: true, force: true });
});

function storeNamed(name: string): HivewatchStore {
  const store = sqliteContractStore(openSqliteStore({ path: join(dir, `${name}.db`) }));
  stores.push(store);
  return store;
}

const ingesterOf = (store: HivewatchStore): OtelIngester => new OtelIngester(store, { now: () => T0 + 60_000 });

/** A Claude Code API request that names no session: it joins its agent's one open session, if any. */
function anonymousRequest(t: number): TelemetryRecord[] {
  const body = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
        scopeLogs: [
          {
            logRecords: [
              {
                timeUnixNano: `${t * 1_000_000}`,
                body: { stringValue: 'claude_code.api_request' },
                attributes: [
                  { key: 'model', value: { stringValue: 'claude-sonnet-4-5' } },
                  { key: 'duration_ms', value: { stringValue: '120' } },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
  return decodeOtlp('logs', 'json', Buffer.from(JSON.stringify(body)));
}

/** Three payloads: session A opens, an anonymous request (joins A), then A fails once and session B starts. */
function payloads(): Payload[] {
  const first = claudeCodeLogs(
    [
      ['user_prompt', { 'prompt.id': 'p-1', prompt_length: '5' }],
      ['api_request', { model: 'claude-sonnet-4-5', duration_ms: '900', cost_usd: '0.01' }],
    ],
    'session-a',
    T0,
  );
  const third = [
    ...claudeCodeLogs(
      [['api_error', { model: 'claude-sonnet-4-5', status_code: '529', error: 'Overloaded', attempt: '1', duration_ms: '40' }]],
      'session-a',
      T0 + 10_000,
    ),
    ...claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-9', prompt_length: '3' }]], 'session-b', T0 + 11_000),
  ];
  return [
    { records: first, digest: 'payload-1' },
    { records: anonymousRequest(T0 + 5_000), digest: 'payload-2' },
    { records: third, digest: 'payload-3' },
  ];
}

async function journals(store: HivewatchStore): Promise<Record<string, HivewatchEvent[]>> {
  const runs = (await store.listRuns({ limit: 50 })).runs;
  return Object.fromEntries(await Promise.all(runs.map(async (run) => [run.id, await store.getEvents(run.id)] as const)));
}

describe('OtelIngester.ingestMany: several payloads in one transaction', () => {
  it('journals exactly what the same payloads journal one at a time, in one commit', async () => {
    const grouped = storeNamed('grouped');
    const commits: number[] = [];
    grouped.subscribe((events) => commits.push(events.length));
    const outcomes = await ingesterOf(grouped).ingestMany(payloads());

    const single = storeNamed('single');
    const ingester = ingesterOf(single);
    const one: unknown[] = [];
    for (const payload of payloads()) one.push(await ingester.ingest(payload.records, payload.digest));

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : o.reason))).toEqual(one);
    // The anonymous request joined session A, opened by the payload before it in the same transaction.
    expect(one[1]).toMatchObject({ records: 1, unattached: 0, duplicate: false });
    expect(await journals(grouped)).toEqual(await journals(single));
    expect(Object.keys(await journals(grouped))).toHaveLength(2);
    expect(commits).toHaveLength(1);
    expect(await grouped.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });

  it('a payload ingested before is a duplicate and the others are journaled once each', async () => {
    const store = storeNamed('retried');
    const ingester = ingesterOf(store);
    const [first, second, third] = payloads() as [Payload, Payload, Payload];
    await ingester.ingest(first.records, first.digest);
    const outcomes = await ingester.ingestMany([first, second, third]);
    expect(outcomes.map((o) => o.status === 'fulfilled' && o.value.duplicate)).toEqual([true, false, false]);

    const single = storeNamed('reference');
    const reference = ingesterOf(single);
    for (const payload of [first, second, third]) await reference.ingest(payload.records, payload.digest);
    expect(await journals(store)).toEqual(await journals(single));
  });

  it('the store refuses a batch of payloads one of which it took before, and writes none of it', async () => {
    const store = storeNamed('refused');
    const session = {
      sessionKey: 'claude-code\nx',
      runId: 'ext-x',
      origin: 'runtime:claude-code',
      sessionId: 'x',
      parent: null,
      lastEventAt: T0,
      idle: false,
      openTask: null,
      openTaskAttempts: 0,
      taskCount: 0,
      lastSeq: 0,
    };
    expect(await store.ingestExternal({ digest: 'seen', records: 1, receivedAt: T0, sessions: [] }, [])).toBe(true);
    const batch = {
      digest: null,
      records: 0,
      receivedAt: T0,
      sessions: [session],
      payloads: [
        { digest: 'new', records: 1 },
        { digest: 'seen', records: 1 },
      ],
    };
    await expect(store.ingestExternal(batch, [])).rejects.toBeInstanceOf(DuplicatePayloadError);
    // Rolled back: the new digest was not remembered, nor the session written.
    expect(await store.externalSession('claude-code\nx')).toBeNull();
    expect(await store.ingestExternal({ digest: 'new', records: 1, receivedAt: T0, sessions: [] }, [])).toBe(true);
  });
});
