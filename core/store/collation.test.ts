import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * One collation on both engines (docs/decisions/0024-one-query-code-two-engines.md, "One collation on both
 * engines"): every ordered answer sorts text bytewise (UTF-8 bytes, i.e. code points), on SQLite
 * (BINARY), on a PostgreSQL database with the C locale, and on one whose default collation is
 * ICU en-US (which alone would put 'alpha' before 'Alpha' before 'ALPHA_beta', ignore the
 * underscore, and put 'Émile' beside 'emile').
 */

/** Mixed case, accents, underscores, punctuation and digits: where a locale's order and the bytes' part. */
const NAMES = [
  'alpha',
  'Alpha',
  'ALPHA',
  'alpha_beta',
  'alphabeta',
  'alpha-beta',
  'alpha beta',
  '_alpha',
  'Émile',
  'emile',
  'Emile',
  'éclair',
  'eclair',
  'zeta',
  'Zeta',
  'ß',
  'straße',
  'strasse',
  'Ωmega',
  '日本',
  'a1',
  'a10',
  'a2',
];

const bytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const ascending = [...NAMES].sort(bytewise);
const runId = (name: string): string => `run ${name}`;

const { engines, start, stop } = testEngines('collation');
beforeAll(start, 60_000);
afterAll(stop);

/** Every run starts at the same instant and fails once: ties everywhere but the text. */
async function storeOfNames(location: string): Promise<HivewatchStore> {
  const store = await openStore({ path: location });
  for (const name of NAMES) {
    const run = new JournalBuilder(runId(name), { flow: `flows/${name}.prose`, flowName: name, start: Date.UTC(2026, 0, 1) })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }] }])
      .fail();
    await store.appendEvents(run.events);
  }
  return store;
}

async function allRunPages(store: HivewatchStore, sort?: '-started' | 'flow' | '-flow'): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ sort, limit: 4, cursor });
    ids.push(...page.runs.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}

async function allErrorPages(store: HivewatchStore): Promise<string[]> {
  const runs: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listErrors({ limit: 5, cursor });
    runs.push(...page.errors.map((e) => e.runId));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return runs;
}

describe.each(engines)('text sorts bytewise on $name', (engine) => {
  let store: HivewatchStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('orders runs by flow name and by id (ties), page after page, both directions', async () => {
    store = await storeOfNames(await engine.fresh());
    expect(await allRunPages(store, 'flow')).toEqual(ascending.map(runId));
    expect(await allRunPages(store, '-flow')).toEqual([...ascending].reverse().map(runId));
    // One start time for all: the newest-first list falls back to the id, descending.
    expect(await allRunPages(store)).toEqual([...ascending].map(runId).sort(bytewise).reverse());
    expect((await store.countRuns()).byFlow.map((f) => f.flowName)).toEqual(ascending);
  });

  it('orders equal error and failure counts by their key, and occurrences of one instant by run', async () => {
    store = await storeOfNames(await engine.fresh());
    const flows = (await store.errorCounts({ by: 'flow' })).map((c) => c.key);
    const files = NAMES.map((name) => `flows/${name}.prose`).sort(bytewise);
    expect(flows).toEqual(files);
    const failures = await store.failureCounts({ by: 'flow' });
    expect(failures.rows.map((r) => r.key)).toEqual(files);
    expect(await allErrorPages(store)).toEqual([...ascending].map(runId).sort(bytewise).reverse());
  });

  it('a text search folds ASCII case only, as SQLite LIKE does', async () => {
    store = await storeOfNames(await engine.fresh());
    // Two characters: below the trigram index's minimum, so SQLite answers with LIKE too.
    const found = (await store.listRuns({ text: 'ZE', sort: 'flow' })).runs.map((r) => r.flowName);
    expect(found).toEqual(['Zeta', 'zeta']);
    const accented = (await store.listRuns({ text: 'É', sort: 'flow' })).runs.map((r) => r.flowName);
    expect(accented).toEqual(['Émile']);
  });
});
