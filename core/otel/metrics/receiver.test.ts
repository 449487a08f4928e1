import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../agents-real/recording/fixtures-io.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../receive/receiver.js';
import { UNHURRIED_QUEUE } from '../testing.js';

/**
 * `/v1/metrics` through the real receiver: the real Codex 0.171.0 metrics exports taken in JSON
 * and gzipped protobuf under the same token and limits as logs and traces; the one point
 * Hivewatch reads journaled, the others counted; a bad body refused with its reason and nothing
 * journaled or counted.
 */

/** Over Codex's JSON metrics export at exit (about 1 MB: every histogram's buckets), as the default 8 MiB is. */
const LIMIT = 2 * 1024 * 1024;
let store: HivewatchStore;
let receiver: OtlpReceiver;

beforeEach(async () => {
  store = await openStore({ path: ':memory:' });
  receiver = await startOtlpReceiver({ store, port: 0, maxBodyBytes: LIMIT, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
});
afterEach(async () => {
  await receiver.close();
  await store.close();
});

function metricsBody(run: string): Buffer {
  const e = readFixture('codex-cli', run)?.exports.find((x) => x.signal === 'metrics');
  if (!e) throw new Error(`no metrics export in codex-cli/${run}`);
  return e.payload;
}

async function post(body: Buffer | string, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; body: string }> {
  const res = await fetch(`${receiver.endpoint}/v1/metrics`, {
    method,
    headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
  });
  return { status: res.status, body: await res.text() };
}

describe('OTLP receiver /v1/metrics', () => {
  it('takes JSON and gzipped protobuf metrics: the spawned-thread point journaled on the spawning thread, the rest counted', async () => {
    expect(await post(metricsBody('subagent.json-out.otlp-json.default-retries'))).toEqual({ status: 200, body: '{}' });
    const pb = await post(gzipSync(metricsBody('subagent.plain-out.otlp-protobuf.default-retries')), {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
    });
    expect(pb).toEqual({ status: 200, body: '' });
    const counted = receiver.metricPoints;
    expect([counted.journaled, counted.read]).toEqual([2, 2]);
    expect(counted.dropped).toBeGreaterThan(100);
    // One run per spawning thread (each run of the CLI had one), each with the point of the thread it started.
    const runs = (await store.listRuns({ limit: 10 })).runs;
    expect(runs.map((r) => r.flowName.startsWith('Codex CLI session '))).toEqual([true, true]);
    for (const run of runs) {
      const events = await store.getEvents(run.id);
      expect(events.filter((e) => e.type === 'externalEvent').map((e) => e.type === 'externalEvent' && [e.name, e.attributes['metric.value']])).toEqual([
        ['codex.thread.started', 1],
      ]);
    }
  });

  it('refuses a bad body with its reason and journals and counts nothing', async () => {
    const before = await store.stats();
    const bad = await post('{"resourceMetrics": {}}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({ error: 'malformed OTLP payload: resourceMetrics must be an array' });
    expect((await post(Buffer.from([0x0a, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' })).status).toBe(400);
    expect((await post('{}', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('', {}, 'GET')).status).toBe(405);
    expect((await post('x'.repeat(LIMIT + 1))).status).toBe(413);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(await store.stats()).toEqual(before);
    expect(receiver.metricPoints).toEqual({ journaled: 0, read: 0, dropped: 0 });
    // An empty request is a metrics request of no points.
    expect(await post('{}')).toEqual({ status: 200, body: '{}' });
  });
});
