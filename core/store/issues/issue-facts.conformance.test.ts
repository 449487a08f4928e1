import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from '../contract.js';
import type { IssueFacts } from './issue-facts.js';
import { openStore } from '../open.js';
import type { ErrorOccurrence } from '../queries/errors.js';
import { testEngines } from '../testing/engines.js';
import { randomJournals } from '../testing/journal-builder.js';

/**
 * Issue facts read from what commit keeps (migration 18's tables, the group trend rollups) equal
 * a full scan of the occurrences, on every engine, over seeded random histories: after ingest
 * (whose run ends settle occurrences into ending errors) and again after prune deletes part of
 * it. `HIVEWATCH_SEED=n` replays one history; the seed is in every test's name.
 */

const { engines, start, stop } = testEngines('issue-facts', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEED = Number(process.env.HIVEWATCH_SEED ?? 2_411);
/** Ten days of runs; `now` a little over eight days in, off the hour, so every window has edges. */
const FROM = Date.UTC(2026, 2, 1);
const SPAN = 10 * DAY;
const NOW = FROM + 8 * DAY + 17 * 60_000 + 4_321;

async function everyOccurrence(store: HivewatchStore): Promise<ErrorOccurrence[]> {
  const out: ErrorOccurrence[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listErrors({ limit: 1_000, ...(cursor !== null ? { cursor } : {}) });
    out.push(...page.errors);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return out;
}

/** What the facts mean, counted from every occurrence. */
function scannedFacts(occurrences: readonly ErrorOccurrence[], now: number): IssueFacts[] {
  const byIssue = new Map<string, ErrorOccurrence[]>();
  for (const o of occurrences) byIssue.set(o.fingerprint, [...(byIssue.get(o.fingerprint) ?? []), o]);
  const inWindow = (list: readonly ErrorOccurrence[], from: number, to: number): number => list.filter((o) => o.ts >= from && o.ts < to).length;
  return [...byIssue]
    .map(([fingerprint, list]) => ({
      fingerprint,
      runs: new Set(list.map((o) => o.runId)).size,
      failures: list.filter((o) => o.ending).length,
      flows: new Set(list.map((o) => o.flow)).size,
      lastHour: inWindow(list, now - HOUR, now),
    }))
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
}

const byFingerprint = (facts: readonly IssueFacts[]): IssueFacts[] => [...facts].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));

async function expectFactsMatchScan(store: HivewatchStore): Promise<ErrorOccurrence[]> {
  const occurrences = await everyOccurrence(store);
  const scanned = scannedFacts(occurrences, NOW);
  expect(scanned.length).toBeGreaterThan(3);
  expect(byFingerprint(await store.issues.facts({ now: NOW }))).toEqual(scanned);
  // Some issues only, rates only: the same rates, the rest read as 0.
  const some = scanned.filter((_, i) => i % 2 === 0);
  const rates = await store.issues.facts({ fingerprints: some.map((f) => f.fingerprint), now: NOW, ratesOnly: true });
  expect(byFingerprint(rates)).toEqual(some.map((f) => ({ ...f, runs: 0, failures: 0, flows: 0 })));
  return occurrences;
}

describe.each(engines)('issue facts from the rollups on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it(`equal a full scan after ingest and after prune (seed ${SEED})`, async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    for (const journal of randomJournals(SEED, 120, { start: FROM, spanMs: SPAN })) await store.appendEvents(journal);
    const before = await expectFactsMatchScan(store);
    expect(before.some((o) => o.ending)).toBe(true);

    // Prune the older half: every counted run, flow and failure of a deleted run goes with it.
    const report = await store.prune({ olderThanMs: Date.now() - (FROM + SPAN / 2) });
    expect(report.errors).toBeGreaterThan(0);
    const after = await expectFactsMatchScan(store);
    expect(after.length).toBe(before.length - report.errors);
  });

  it(`count occurrences after a time as the errors say (seed ${SEED})`, async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    for (const journal of randomJournals(SEED + 1, 60, { start: FROM, spanMs: SPAN })) await store.appendEvents(journal);
    const occurrences = await everyOccurrence(store);
    const fingerprints = [...new Set(occurrences.map((o) => o.fingerprint))].slice(0, 4);
    for (const fingerprint of fingerprints) {
      const mine = occurrences
        .filter((o) => o.fingerprint === fingerprint)
        .sort((a, b) => a.ts - b.ts || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : a.seq - b.seq));
      // Before everything, at an occurrence's own time (strictly after it), mid-hour, after all.
      const middle = mine[Math.floor(mine.length / 2)] as ErrorOccurrence;
      for (const after of [FROM - DAY, middle.ts, middle.ts + 1_234_567, NOW + SPAN]) {
        const later = mine.filter((o) => o.ts > after);
        const answer = await store.issues.occurrencesAfter(fingerprint, after);
        expect({ fingerprint, after, answer }).toEqual({
          fingerprint,
          after,
          answer: { count: later.length, first: later[0] ? `${later[0].runId}#${later[0].seq}` : null },
        });
      }
    }
  });
});
