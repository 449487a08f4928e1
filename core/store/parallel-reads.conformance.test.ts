import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { openStore } from './open.js';
import type { RunDetail } from './queries/runs.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder, type TaskScript } from './testing/journal-builder.js';
import { seededRandom } from '../testing/seeded-random.js';

/**
 * Reads running while the store writes, on every engine (SQLite on its one connection and with
 * its read workers, sqlite/read-pool.ts; PostgreSQL on its pool's clients): a read started before a
 * batch's commit answers the journal before it or after it, never between (`getRun` is several
 * statements: one snapshot), and a read started after a commit sees it.
 */

const { engines, start, stop } = testEngines('parallel_reads', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const NOW = Date.UTC(2026, 10, 1);
const SEEDS = [3, 17];

/** A run of many steps with retried and failed attempts, cut into batches of seeded sizes. */
function batchesOf(seed: number): HivewatchEvent[][] {
  const random = seededRandom(seed);
  const builder = new JournalBuilder(`run-${seed}`, { flow: 'flows/p.prose', flowName: 'p', start: NOW - 3_600_000 }).start();
  for (let step = 0; step < 12; step++) {
    const tasks: TaskScript[] = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, t) => ({
      name: `s${step}t${t}`,
      attempts: random() < 0.5 ? [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }, 'ok'] : ['ok'],
    }));
    builder.runStep(tasks);
  }
  const events = builder.complete().events;
  const batches: HivewatchEvent[][] = [];
  for (let at = 0; at < events.length; ) {
    const size = 1 + Math.floor(random() * 6);
    batches.push(events.slice(at, at + size));
    at += size;
  }
  return batches;
}

describe.each(engines)('reads beside writes on $name', (engine) => {
  it.each(SEEDS)('answers each read with the run as a whole prefix of batches made it, never part of one (seed %i)', async (seed) => {
    const batches = batchesOf(seed);
    const runId = `run-${seed}`;
    // What the run reads as after each whole prefix of batches, read with nothing running beside.
    const reference = await openStore({ path: await engine.fresh(), recover: false, now: () => NOW });
    const expected: (RunDetail | null)[] = [await reference.getRun(runId)];
    try {
      for (const batch of batches) {
        await reference.appendEvents(batch);
        expected.push(await reference.getRun(runId));
      }
    } finally {
      await reference.close();
    }

    const store = await openStore({ path: await engine.fresh(), recover: false, now: () => NOW, ...engine.options });
    try {
      for (const [i, batch] of batches.entries()) {
        // Sent before the batch commits: each may answer prefix i or i + 1 (its snapshot's), nothing else.
        const reads = [store.getRun(runId), store.getRun(runId)];
        await store.appendEvents(batch);
        const answers = await Promise.all(reads);
        for (const answer of answers) {
          const prefix = answer === null ? 0 : batches.findIndex((_, k) => expected[k + 1]?.run.lastSeq === answer.run.lastSeq) + 1;
          expect([i, i + 1], `seed ${seed}, batch ${i}: a read answered the journal after ${prefix} batches`).toContain(prefix);
          expect(answer, `seed ${seed}, batch ${i}: not the run as ${prefix} whole batches made it`).toEqual(expected[prefix]);
        }
        // Started after the commit: sees it.
        expect(await store.getRun(runId), `seed ${seed}, read after batch ${i}`).toEqual(expected[i + 1]);
      }
    } finally {
      await store.close();
    }
  });

  it('answers reads sent at once, each as it would alone', async () => {
    const store = await openStore({ path: await engine.fresh(), recover: false, now: () => NOW, ...engine.options });
    try {
      for (const batch of batchesOf(5)) await store.appendEvents(batch);
      const alone = [await store.getRun('run-5'), await store.errorCounts({ by: 'code' }), await store.listRuns(), await store.errorGroups()];
      const atOnce = await Promise.all([store.getRun('run-5'), store.errorCounts({ by: 'code' }), store.listRuns(), store.errorGroups()]);
      expect(atOnce).toEqual(alone);
    } finally {
      await store.close();
    }
  });
});
