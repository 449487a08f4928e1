import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/service/api.js';
import { readApi } from '../../core/service/read-api.js';
import { openStore, type HivewatchStore } from '../../core/store/index.js';
import { JournalBuilder } from '../../core/store/testing/journal-builder.js';
import { testEngines } from '../../core/store/testing/engines.js';
import { propertySeed } from '../../core/testing/property.js';
import { seededRandom } from '../../core/testing/seeded-random.js';
import { matchesFilter } from './runs-query.js';

/**
 * The Runs list's client-side text filter against the real store's text search, on
 * generated runs and texts: whatever the client tells (true / false) the store agrees with, and a
 * run the store finds is never told false (it would drop out of the list on its next live event).
 * Texts come from a small alphabet with both cases, LIKE's and FTS's special characters and a
 * letter beyond ASCII, so hits, misses, the short (LIKE) and long (trigram index) paths all occur.
 * The seed is fixed, overridable with HIVEWATCH_FUZZ_SEED, and printed on failure.
 */

const ALPHABET = ['a', 'A', 'b', 'B', 'c', 'C', ' ', '_', '%', '"', 'é', 'É', '-'];
const RUNS = 40;
const TEXTS = 120;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const word = (random: Random, min: number, max: number): string =>
  Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => pick(random, ALPHABET)).join('');
/** Flips the case of some ASCII letters: the search must not care. */
const recase = (random: Random, text: string): string =>
  [...text].map((c) => (random() < 0.5 ? c : c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

interface GeneratedRun {
  id: string;
  flowName: string;
  prompt: string;
  message: string | null;
}

function generateRuns(random: Random): GeneratedRun[] {
  return Array.from({ length: RUNS }, (_, i) => ({
    id: `run_${i}_${word(random, 0, 3).replace(/[^a-zA-Z]/g, '')}`,
    flowName: word(random, 1, 8),
    prompt: word(random, 2, 10),
    message: random() < 0.6 ? word(random, 1, 10) : null,
  }));
}

/** A text to search for: mostly a piece of some run's field (case changed), sometimes anything. */
function generateText(random: Random, runs: readonly GeneratedRun[]): string {
  const run = pick(random, runs);
  const field = pick(random, [run.id, run.flowName, run.prompt, run.message ?? run.flowName]);
  if (random() < 0.25 || field.length === 0) return word(random, 1, 5);
  const start = Math.floor(random() * field.length);
  const piece = field.slice(start, start + 1 + Math.floor(random() * 5));
  return recase(random, piece);
}

async function journal(store: HivewatchStore, runs: readonly GeneratedRun[]): Promise<void> {
  for (const [i, run] of runs.entries()) {
    const builder = new JournalBuilder(run.id, { flow: `flows/${run.flowName}.prose`, flowName: run.flowName, start: Date.UTC(2026, 0, 1) + i * 60_000 });
    builder.start();
    if (run.message === null) builder.runStep([{ name: run.prompt, attempts: ['ok'] }]).complete();
    else builder.runStep([{ name: run.prompt, attempts: [{ code: 'RUNTIME_CRASHED', message: run.message }] }]).fail();
    await store.appendEvents(builder.events);
  }
}

const engines = testEngines('runs-filter');
beforeAll(() => engines.start());
afterAll(() => engines.stop());

describe.each(engines.engines)('the Runs text filter agrees with the store’s text search ($name)', (engine) => {
  it('on generated runs and texts: told true only for runs the store finds, never false for one it finds', async () => {
    const seed = propertySeed(20_2026);
    const random = seededRandom(seed);
    const runs = generateRuns(random);
    const store = await openStore({ path: await engine.fresh() });
    try {
      await journal(store, runs);
      const api = readApi(store, () => Promise.resolve(null));
      const summaries: RunSummary[] = (await api.listRuns({ limit: 1_000 })).items;
      expect(summaries).toHaveLength(RUNS);
      const told = { yes: 0, foundByPromptOrFolding: 0 };
      for (let i = 0; i < TEXTS; i++) {
        const text = generateText(random, runs);
        if (text.trim() === '') continue;
        const found = new Set((await api.listRuns({ text, limit: 1_000 })).items.map((r) => r.id));
        for (const summary of summaries) {
          const client = matchesFilter(summary, { text });
          const where = `seed ${seed} (HIVEWATCH_FUZZ_SEED=${seed} replays it), text ${JSON.stringify(text)}, run ${JSON.stringify(summary.id)}`;
          if (client === true) expect(found.has(summary.id), `told true, the store does not find it: ${where}`).toBe(true);
          if (client === false) expect(found.has(summary.id), `told false, the store finds it: ${where}`).toBe(false);
          if (client === true) told.yes++;
          if (client === null && found.has(summary.id)) told.foundByPromptOrFolding++;
        }
      }
      // The generated cases reach every answer: hits, and runs the store finds by their prompt alone.
      expect(told.yes, `seed ${seed}`).toBeGreaterThan(0);
      expect(told.foundByPromptOrFolding, `seed ${seed}`).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
