import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/seeded-random.js';
import type { HivewatchStore } from './contract.js';
import type { HivewatchEvent } from '../base/events.js';
import { openStore } from './open.js';
import { TEXT_COUNT_CAP } from './queries/runs.js';
import type { RunRow } from './projection/schema.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Migration 19 and the bounded answers of the run list, on both engines over
 * generated histories: an indexed text search (SQLite's trigram tables, PostgreSQL's ILIKE over
 * pg_trgm) finds exactly what a LIKE scan of the runs finds, page by page; the counts of a
 * start-time window read from the hourly counts equal counting the runs, through status changes
 * and prune; a count past its cap says so and stays a lower bound.
 */

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const SEED = Number(process.env.HW_SEED ?? Date.now() % 1_000_000);
const WORDS = ['merge', 'conflict', 'timeout', 'Deploy', 'schema', 'retry', 'café', 'ünïcode', '50%', 'under_score', 'quota'];
const FLOWS: readonly [string, string][] = [
  ['flows/alpha.prose', 'alpha'],
  ['flows/beta.prose', 'Beta Flow'],
  ['flows/gamma.prose', 'gamma'],
];

interface Generated {
  runs: Map<string, { prompts: string[] }>;
  /** Runs left running, for the status changes. */
  open: JournalBuilder[];
}

function phrase(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)] as string).join(' ');
}

/** `count` runs over three days (starts at odd minutes, so hours have partial edges), a third failed with a message, a third open. */
function generate(random: () => number, count: number, prefix: string): { events: HivewatchEvent[]; generated: Generated } {
  const generated: Generated = { runs: new Map(), open: [] };
  const events: HivewatchEvent[] = [];
  for (let i = 0; i < count; i++) {
    const [flow, flowName] = FLOWS[Math.floor(random() * FLOWS.length)] as [string, string];
    const id = `${prefix}-${String(i).padStart(4, '0')}`;
    const b = new JournalBuilder(id, { flow, flowName, start: T0 + Math.floor(random() * 72 * HOUR) }).start();
    const prompts = [`Summarise ${phrase(random, 2)}`];
    const kind = random();
    if (kind < 1 / 3)
      b.runStep([{ name: prompts[0], attempts: [{ code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: `failed: ${phrase(random, 3)}` }] }]).fail();
    else if (kind < 2 / 3) b.runStep([{ name: prompts[0], attempts: ['ok'] }]).complete();
    else {
      b.runStep([{ name: prompts[0], attempts: ['ok'] }]);
      generated.open.push(b);
    }
    generated.runs.set(id, { prompts });
    events.push(...b.events);
  }
  return { events, generated };
}

async function everyRun(store: HivewatchStore): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 500, cursor });
    rows.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return rows;
}

/** What a LIKE scan finds: the text, ASCII letters folded, in the id, flow, flow name, last error message or a prompt; newest first. */
function likeScan(rows: readonly RunRow[], generated: Generated, text: string): string[] {
  const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const needle = fold(text.trim());
  return rows
    .filter((r) => [r.id, r.flow, r.flowName, r.lastErrorMessage ?? '', ...(generated.runs.get(r.id)?.prompts ?? [])].some((f) => fold(f).includes(needle)))
    .map((r) => r.id);
}

async function searchPaged(store: HivewatchStore, text: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ text, limit: 7, cursor });
    ids.push(...page.runs.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}

/** The counts a window's runs add up to, as countRuns answers them. */
function countedIn(
  rows: readonly RunRow[],
  since: number | undefined,
  until: number | undefined,
): { total: number; byStatus: Record<string, number>; byFlow: Record<string, number> } {
  const inside = rows.filter((r) => (since === undefined || r.startedAt >= since) && (until === undefined || r.startedAt < until));
  const byStatus: Record<string, number> = {};
  const byFlow: Record<string, number> = {};
  for (const r of inside) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    byFlow[r.flow] = (byFlow[r.flow] ?? 0) + 1;
  }
  return { total: inside.length, byStatus, byFlow };
}

const { engines, start, stop } = testEngines('runcounts');
beforeAll(start, 120_000);
afterAll(stop);

describe.each(engines)(`run list at scale on $name (seed ${SEED}, replay with HW_SEED)`, (engine) => {
  it('an indexed text search finds what a LIKE scan finds, page by page', async () => {
    const random = seededRandom(SEED);
    const store = await openStore({ path: await engine.fresh(), recover: false });
    try {
      const { events, generated } = generate(random, 240, 'run');
      await store.appendEvents(events);
      const rows = await everyRun(store);
      const texts = [...WORDS, 'MERGE CONFLICT', 'failed: ', 'Beta flow', 'run-01', '%', '_', 'ti', 'no run has this text', ' quota ', phrase(random, 2)];
      for (const text of texts) {
        const found = await searchPaged(store, text);
        expect(found, `"${text}" (seed ${SEED})`).toEqual(likeScan(rows, generated, text));
        const counts = await store.countRuns({ text });
        expect(counts.total, `count of "${text}" (seed ${SEED})`).toBe(found.length);
        expect(counts.atLeast).toBeUndefined();
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('counts a start-time window from the hourly counts exactly, through status changes and prune', async () => {
    const random = seededRandom(SEED + 1);
    const store = await openStore({ path: await engine.fresh(), recover: false, now: () => T0 + 100 * HOUR });
    try {
      const { events, generated } = generate(random, 180, 'win');
      await store.appendEvents(events);
      const windows = (): [number | undefined, number | undefined][] => [
        [T0 + 24 * HOUR, undefined],
        [T0 + Math.floor(random() * 72 * HOUR), undefined],
        [undefined, T0 + Math.floor(random() * 72 * HOUR)],
        [T0 + 5 * HOUR + 17, T0 + 5 * HOUR + 40 * 60_000],
        [T0 + 3 * HOUR + 1, T0 + 30 * HOUR - 1],
        [T0 + Math.floor(random() * 36 * HOUR), T0 + 36 * HOUR + Math.floor(random() * 36 * HOUR)],
      ];
      const check = async (when: string): Promise<void> => {
        const rows = await everyRun(store);
        for (const [since, until] of windows()) {
          const counts = await store.countRuns({ ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) });
          const expected = countedIn(rows, since, until);
          const label = `${when}: [${since}, ${until}) (seed ${SEED})`;
          expect(counts.total, label).toBe(expected.total);
          expect(counts.byStatus, label).toEqual(expected.byStatus);
          expect(Object.fromEntries(counts.byFlow.map((f) => [f.flow, f.count])), label).toEqual(expected.byFlow);
        }
      };
      await check('generated');
      // Open runs end: each moves from "running" to "completed" in its hour.
      for (const b of generated.open.slice(0, 20)) {
        const before = b.events.length;
        await store.appendEvents(b.complete().events.slice(before));
      }
      await check('after status changes');
      const pruned = await store.prune({ olderThanMs: 70 * HOUR });
      expect(pruned.runs).toBeGreaterThan(0);
      await check('after prune');
    } finally {
      await store.close();
    }
  }, 120_000);

  it('an ending-error filter pages the same whether it walks the sort or reads its own index', async () => {
    const random = seededRandom(SEED + 2);
    const store = await openStore({ path: await engine.fresh(), recover: false });
    try {
      // 400 runs: most fail with a common code (SQLite walks the sort's index), a few with a rare one.
      const events: HivewatchEvent[] = [];
      for (let i = 0; i < 400; i++) {
        const code = i % 80 === 3 ? 'RUNTIME_TIMEOUT' : random() < 0.8 ? 'AGENT_NO_CHANGES' : null;
        const b = new JournalBuilder(`code-${String(i).padStart(3, '0')}`, { start: T0 + Math.floor(random() * 72 * HOUR) }).start();
        if (code === null) b.runStep([{ attempts: ['ok'] }]).complete();
        else b.runStep([{ attempts: [{ code, origin: code === 'RUNTIME_TIMEOUT' ? 'runtime:fake' : 'agent:coder', message: `${code} ${i}` }] }]).fail();
        b.wait(Math.floor(random() * 5_000));
        events.push(...b.events);
      }
      await store.appendEvents(events);
      const rows = await everyRun(store);
      const paged = async (query: Parameters<HivewatchStore['listRuns']>[0]): Promise<string[]> => {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await store.listRuns({ ...query, limit: 9, cursor });
          ids.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor;
        } while (cursor !== null);
        return ids;
      };
      const byStart = (a: RunRow, b: RunRow): number => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1);
      const byErrors = (a: RunRow, b: RunRow): number => b.errorCount - a.errorCount || byStart(a, b);
      for (const code of ['AGENT_NO_CHANGES', 'RUNTIME_TIMEOUT']) {
        const matching = rows.filter((r) => r.endingCode === code || r.endingRootCode === code);
        expect(matching.length, code).toBeGreaterThan(0);
        expect(await paged({ code }), `${code} (seed ${SEED})`).toEqual([...matching].sort(byStart).map((r) => r.id));
        expect(await paged({ code, sort: '-errors' }), `${code} by errors (seed ${SEED})`).toEqual([...matching].sort(byErrors).map((r) => r.id));
        const category = rows.filter((r) => r.endingCategory === 'agent');
        expect(await paged({ category: 'agent', sort: '-errors' }), `agent by errors (seed ${SEED})`).toEqual([...category].sort(byErrors).map((r) => r.id));
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('stops counting a text search at its cap and says the numbers are lower bounds', async () => {
    const store = await openStore({ path: await engine.fresh(), recover: false });
    try {
      const events: HivewatchEvent[] = [];
      for (let i = 0; i <= TEXT_COUNT_CAP; i++)
        events.push(...new JournalBuilder(`capped-${i}`, { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + i * 1_000 }).start().complete().events);
      await store.appendEvents(events);
      const counts = await store.countRuns({ text: 'capped-' });
      expect(counts.atLeast).toBe(true);
      expect(counts.total).toBe(TEXT_COUNT_CAP + 1);
      // Under a window too: the runs in it, however many hits the index has outside it.
      expect((await store.countRuns({ text: 'capped-', since: T0 + 1_990_000 })).total).toBe(11);
      // A text that matches fewer is exact; no text is exact at any size (run_counts).
      expect(await store.countRuns({ text: 'capped-20' })).toMatchObject({ total: 12 });
      expect((await store.countRuns({ text: 'capped-20' })).atLeast).toBeUndefined();
      expect(await store.countRuns({})).toEqual({
        total: TEXT_COUNT_CAP + 1,
        byStatus: { completed: TEXT_COUNT_CAP + 1 },
        byFlow: [{ flow: 'flows/alpha.prose', flowName: 'alpha', count: TEXT_COUNT_CAP + 1 }],
      });
    } finally {
      await store.close();
    }
  }, 120_000);
});
