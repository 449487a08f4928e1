import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { assertProperty } from '../../testing/property.js';
import { seededRandom } from '../../testing/seeded-random.js';
import type { HivewatchStore } from '../contract.js';
import { all } from '../queries/plan.js';
import { openStore } from '../open.js';
import { testEngines } from '../testing/engines.js';
import { JournalBuilder, randomJournals } from '../testing/journal-builder.js';
import { runOutcomesByScan } from '../testing/outcome-scans.js';
import { durationBucket, durationBucketSql, medianOfBuckets } from './durations.js';
import type { FlowHealth } from './flow-health.js';

/**
 * Each flow's health on every engine: the runs that ended in any window (by status, and the
 * completed ones' duration buckets) equal a plain GROUP BY over the runs, so the failures,
 * success rate and median the Flows list shows do too; the newest run is the newest run; and the
 * duration buckets are the same numbers in SQL on each engine and in JavaScript.
 */

const { engines, start, stop } = testEngines('flow_health', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const DAY0 = Date.UTC(2026, 0, 1);

const rename = (events: readonly HivewatchEvent[], prefix: string): HivewatchEvent[] =>
  events.map((e) => ({ ...e, runId: `${prefix}${e.runId}` }) as HivewatchEvent);

/** What the health should say for a flow, from the plain GROUP BY's rows. */
function expectedFrom(
  rows: readonly { flow: string; status: string; durationBucket: number; runs: number }[],
  flow: string,
): Pick<FlowHealth, 'ended' | 'successRate' | 'p50DurationMs'> {
  const ended = { completed: 0, failed: 0, cancelled: 0, interrupted: 0 };
  const durations = new Map<number, number>();
  for (const row of rows.filter((r) => r.flow === flow)) {
    ended[row.status as keyof typeof ended] += row.runs;
    if (row.status === 'completed') durations.set(row.durationBucket, (durations.get(row.durationBucket) ?? 0) + row.runs);
  }
  const verdicts = ended.completed + ended.failed;
  return { ended, successRate: verdicts === 0 ? null : ended.completed / verdicts, p50DurationMs: medianOfBuckets(durations) };
}

describe.each(engines)('flow health on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const fresh = async (): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('counts the runs that ended in any window as a plain GROUP BY over the runs does', async () => {
    const store = await fresh();
    let round = 0;
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 80 * 60 }),
        fc.integer({ min: 1, max: 100 * 60 }),
        async (seed, fromMinute, lengthMinutes) => {
          round += 1;
          const random = seededRandom(seed);
          for (const journal of randomJournals(seed, 10, { start: DAY0, spanMs: 3 * 86_400_000, openShare: 0.2 })) {
            const events = rename(journal, `h${round}-`);
            const cut = 1 + Math.floor(random() * (events.length - 1));
            await store.appendEvents(events.slice(0, cut));
            await store.appendEvents(events.slice(cut));
          }
          const since = DAY0 + fromMinute * 60_000 + 11;
          const until = since + lengthMinutes * 60_000 + 7;
          for (const window of [{ since, until }, {}]) {
            const health = await store.usage({ kind: 'flowHealth', query: window });
            const scanned = await store.runStatements(() => runOutcomesByScan(window.since, window.until));
            for (const flow of health)
              expect({ flow: flow.flow, ...expectedFrom(scanned, flow.flow) }).toEqual({
                flow: flow.flow,
                ended: flow.ended,
                successRate: flow.successRate,
                p50DurationMs: flow.p50DurationMs,
              });
            expect(new Set(scanned.map((r) => r.flow)).size).toBeLessThanOrEqual(health.length);
            const newest = await store.runStatements(() =>
              all<{ flow: string; id: string; status: string }>(
                `SELECT r.flow, r.id, r.status FROM runs AS r WHERE NOT EXISTS (SELECT 1 FROM runs AS n WHERE n.flow = r.flow AND (n.started_at > r.started_at OR (n.started_at = r.started_at AND n.id > r.id))) ORDER BY r.flow`,
              ),
            );
            expect(health.map((f) => [f.flow, f.lastRun?.id, f.lastRun?.status])).toEqual(newest.map((r) => [r.flow, r.id, r.status]));
          }
        },
      ),
      { seed: 2102, numRuns: engine.name === 'SQLite' ? 10 : 4 },
    );
  }, 240_000);

  it('shows a flow whose newest runs failed as failing, whatever its file says', async () => {
    const store = await fresh();
    const ok = new JournalBuilder('ok-1', { flow: 'flows/ok.prose', flowName: 'ok', start: DAY0, tick: 1000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(ok.events);
    for (let i = 0; i < 6; i += 1) {
      const b = new JournalBuilder(`bad-${i}`, { flow: 'flows/bad.prose', flowName: 'bad', start: DAY0 + i * 60_000, tick: 1000 }).start();
      b.runStep([{ attempts: [{ code: 'RUNTIME_CRASHED' }] }]);
      await store.appendEvents(b.fail().events);
    }
    const health = await store.usage({ kind: 'flowHealth', query: { since: DAY0 - 1 } });
    const bad = health.find((f) => f.flow === 'flows/bad.prose');
    expect(bad).toMatchObject({
      flowName: 'bad',
      lastRun: { id: 'bad-5', status: 'failed' },
      ended: { failed: 6, completed: 0 },
      successRate: 0,
      p50DurationMs: null,
    });
    expect(health.find((f) => f.flow === 'flows/ok.prose')).toMatchObject({ lastRun: { status: 'completed' }, successRate: 1, ended: { completed: 1 } });
  });

  it('buckets durations by the same rule in SQL as in JavaScript', async () => {
    const store = await fresh();
    const values = [0, 1, 7, 99, 100, 101, 999, 1000, 1049, 23_456, 59_999, 60_000, 86_399_999, 9_007_199_254_740_991, -5];
    const random = seededRandom(2103);
    for (let i = 0; i < 200; i += 1) values.push(Math.floor(random() ** 4 * 10 ** (1 + Math.floor(random() * 12))));
    const one = `SELECT x.i AS i, ${durationBucketSql('x.v')} AS b FROM (SELECT CAST(? AS BIGINT) AS i, CAST(? AS BIGINT) AS v) AS x`;
    const sql = await store.runStatements(() =>
      all<{ i: number | string; b: number | string }>(
        `${values.map(() => one).join(' UNION ALL ')} ORDER BY 1`,
        values.flatMap((v, i) => [i, v]),
      ),
    );
    expect(sql.map((r) => Number(r.b))).toEqual(values.map((v) => durationBucket(v)));
  });
});
