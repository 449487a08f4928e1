import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { storableText } from './projection/storable.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Every string a caller hands the store is data, never SQL: every query of the
 * contract, on SQLite and on PostgreSQL (whose `?` → `$n` numbering is our own code,
 * postgres/connection/placeholders.ts), with hostile text in every string parameter. Hostile filters match
 * nothing and change nothing; hostile values stored as data are found exactly.
 */

const EVIL = [
  "'",
  '"',
  "it's",
  '%',
  '_',
  '\\',
  ';',
  '?',
  '??',
  '$1',
  '$$',
  '$1$',
  '$tag$ ? $tag$',
  "E'\\''",
  '::text',
  "' OR 1=1 --",
  '" OR ""="',
  "x'; DROP TABLE runs; --",
  'DROP TABLE errors',
  '1); DELETE FROM events; --',
  '%_%',
  '*/ SELECT * FROM runs /*',
  '-- ?',
  "'?'",
  'a\u0000b',
  '\u0000',
  '\\%',
  '\\_',
  '[a-z]*',
  '"run_text" MATCH "*"',
];

const EVIL_ID = "evil'?$1; DROP TABLE runs; --";
const EVIL_RETRY = "retry of evil'? $$";
const EVIL_FLOW = "flows/it's 100%_done?$1; DROP TABLE runs; --.prose";
const EVIL_NAME = "' OR 'a'='a ? $2";
const EVIL_MESSAGE = "100% of '_' rows? $1 \\ DROP TABLE errors";
const EVIL_TASK = "summarise '%_?' then $1; DROP TABLE tasks";
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

const { engines, start, stop } = testEngines('injection');
beforeAll(start, 60_000);
afterAll(stop);

/** A plain run with a failed attempt; with `hostile`, also a failed run and its retry made of hostile text. */
async function seeded(location: string, hostile: boolean): Promise<HivewatchStore> {
  const store = await openStore({ path: location, recover: false });
  await store.appendEvents(
    new JournalBuilder('plain', { flow: 'flows/plain.prose', flowName: 'plain', start: START })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'plain timeout' }, 'ok'] }])
      .complete().events,
  );
  if (!hostile) return store;
  await store.appendEvents(
    new JournalBuilder(EVIL_ID, { flow: EVIL_FLOW, flowName: EVIL_NAME, start: START + 1_000 })
      .start()
      .runStep([{ name: EVIL_TASK, attempts: [{ code: 'USER_THROWN', origin: 'user', message: EVIL_MESSAGE }] }])
      .fail().events,
  );
  await store.appendEvents(
    new JournalBuilder(EVIL_RETRY, { flow: EVIL_FLOW, flowName: EVIL_NAME, start: START + 2_000, retryOf: EVIL_ID })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete().events,
  );
  return store;
}

/** What the store holds, read through the contract: equal before and after the hostile calls. */
async function contents(store: HivewatchStore): Promise<string> {
  const runs = (await store.listRuns({ limit: 100 })).runs;
  const journals = await Promise.all(runs.map(async (r) => store.getEvents(r.id)));
  const groups = await store.errorGroups({ since: 0 });
  const errors = (await store.listErrors({ limit: 100 })).errors;
  return JSON.stringify({ runs, journals, groups, errors, head: await store.journalHead() });
}

/** Every read of the contract with `value` in each string parameter: none may match anything. */
async function expectNothingMatches(store: HivewatchStore, value: string): Promise<void> {
  const label = JSON.stringify(value);
  const window = { since: START - DAY, until: START + DAY };
  for (const filter of ['flow', 'code', 'category', 'anyCode', 'anyCategory'] as const) {
    expect((await store.listRuns({ [filter]: value })).runs, `listRuns ${filter}=${label}`).toEqual([]);
    expect((await store.countRuns({ [filter]: value })).total, `countRuns ${filter}=${label}`).toBe(0);
  }
  expect((await store.listRuns({ text: value })).runs, `text=${label}`).toEqual([]);
  expect((await store.countRuns({ text: value })).total, `count text=${label}`).toBe(0);
  await expect(store.listRuns({ cursor: value }), `cursor=${label}`).rejects.toThrow(/invalid cursor/);
  expect(await store.getRun(value)).toBeNull();
  expect(await store.getRunRow(value)).toBeNull();
  expect(await store.runLineage(value)).toBeNull();
  expect(await store.getEvents(value)).toEqual([]);
  expect((await store.getJournalPage(value)).events).toEqual([]);
  expect(await store.runHost(value)).toBeNull();
  expect(await store.getCommand(value)).toBeNull();
  expect(await store.pendingCommands([value, 'plain'])).toEqual([]);
  expect(await store.completeCommand(value, { accepted: false, message: value })).toBe(false);
  expect(await store.externalSession(value)).toBeNull();
  expect(await store.attemptTelemetry(value)).toEqual([]);
  await expect(store.getSetting(value), `setting ${label}`).rejects.toThrow(/invalid setting name/);
  expect(await store.recoverInterrupted({ runId: value, force: true })).toEqual([]);
  await expect(store.resumePointForRun(value)).rejects.toThrow(/no run/);
  for (const by of ['category', 'origin', 'code', 'flow', 'run', 'task'] as const) {
    for (const filter of ['flow', 'category', 'origin', 'code'] as const) {
      expect(await store.errorCounts({ by, [filter]: value }), `errorCounts ${by} ${filter}=${label}`).toEqual([]);
    }
  }
  for (const by of ['code', 'rootCode', 'category', 'origin', 'flow'] as const) {
    for (const filter of ['flow', 'category', 'origin', 'code', 'runId'] as const) {
      expect((await store.failureCounts({ by, ...window, [filter]: value })).total, `failureCounts ${by} ${filter}=${label}`).toBe(0);
    }
  }
  for (const filter of ['flow', 'category', 'origin', 'code'] as const) {
    const series = await store.errorSeries({ bucket: 'hour', stackBy: 'origin', ...window, [filter]: value });
    expect(series.series, `errorSeries ${filter}=${label}`).toEqual([]);
    expect(await store.errorGroups({ [filter]: value }), `errorGroups ${filter}=${label}`).toEqual([]);
    expect(await store.errorGroups({ since: 0, [filter]: value }), `windowed errorGroups ${filter}=${label}`).toEqual([]);
    expect((await store.listErrors({ [filter]: value })).errors, `listErrors ${filter}=${label}`).toEqual([]);
  }
  for (const filter of ['fingerprint', 'runId', 'taskId'] as const) {
    expect((await store.listErrors({ [filter]: value })).errors, `listErrors ${filter}=${label}`).toEqual([]);
  }
  const trends = await store.groupTrends({ fingerprints: [value], grain: 'hour', ...window });
  expect(
    [...trends.trends.values()].flat().every((n) => n === 0),
    `groupTrends ${label}`,
  ).toBe(true);
  const bins = await store.groupBins({ fingerprints: [value], ...window, bins: 4 });
  expect(
    [...bins.values()].flat().every((n) => n === 0),
    `groupBins ${label}`,
  ).toBe(true);
  const fingerprint = (await store.errorGroups({}))[0]!.fingerprint;
  const flowTrends = await store.groupTrends({ fingerprints: [fingerprint], grain: 'hour', ...window, flow: value });
  expect(
    [...flowTrends.trends.values()].flat().every((n) => n === 0),
    `groupTrends flow=${label}`,
  ).toBe(true);
  const flowBins = await store.groupBins({ fingerprints: [fingerprint], ...window, bins: 4, flow: value });
  expect(
    [...flowBins.values()].flat().every((n) => n === 0),
    `groupBins flow=${label}`,
  ).toBe(true);
}

describe.each(engines)('strings are data, never SQL, on $name', (engine) => {
  let store: HivewatchStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('hostile text in every string parameter of every query matches nothing and changes nothing', async () => {
    store = await seeded(await engine.fresh(), false);
    const before = await contents(store);
    for (const value of EVIL) await expectNothingMatches(store, value);
    expect(await contents(store)).toBe(before);
    expect(await store.integrityCheck()).toEqual(['ok']);
    expect((await store.verifyAggregates()).ok).toBe(true);
  }, 120_000);

  it('hostile values stored as data are found exactly, and LIKE wildcards and placeholders are literal', async () => {
    store = await seeded(await engine.fresh(), true);
    const ids = async (query: Parameters<HivewatchStore['listRuns']>[0]): Promise<string[]> => (await store!.listRuns(query)).runs.map((r) => r.id).sort();
    expect(await ids({ flow: EVIL_FLOW })).toEqual([EVIL_ID, EVIL_RETRY].sort());
    expect(await ids({ flow: EVIL_NAME })).toEqual([EVIL_ID, EVIL_RETRY].sort());
    const both = [EVIL_ID, EVIL_RETRY].sort();
    // The flow and its name are both runs'; the message is the failed run's, the task its prompt.
    const searches: [string, string[]][] = [
      ['%', both],
      ['_', both],
      ["'", both],
      ['?', both],
      ['$1', both],
      ['$2', both],
      ['100%_done', both],
      ['100%Xdone', []],
      ['\\ DROP', [EVIL_ID]],
      ["'%_?' then", [EVIL_ID]],
      ['plain', ['plain']],
    ];
    for (const [text, expected] of searches) expect(await ids({ text }), `text ${text}`).toEqual(expected);
    expect((await store.countRuns({ text: '?$1', flow: EVIL_FLOW })).total).toBe(2);
    expect((await store.getRun(EVIL_ID))!.run.flowName).toBe(EVIL_NAME);
    expect((await store.getRunRow(EVIL_RETRY))!.flow).toBe(EVIL_FLOW);
    expect((await store.runLineage(EVIL_ID))!.retries.map((r) => r.id)).toEqual([EVIL_RETRY]);
    expect((await store.getEvents(EVIL_ID)).length).toBeGreaterThan(3);
    expect(await store.errorCounts({ by: 'flow', flow: EVIL_FLOW })).toEqual([{ key: EVIL_FLOW, count: 1, label: EVIL_NAME }]);
    expect((await store.errorCounts({ by: 'run', flow: EVIL_NAME })).map((c) => c.key)).toEqual([EVIL_ID]);
    const failures = await store.failureCounts({ by: 'flow', since: START - DAY, until: START + DAY, runId: EVIL_ID });
    expect(failures.rows.map((r) => [r.key, r.label])).toEqual([[EVIL_FLOW, EVIL_NAME]]);
    const errors = (await store.listErrors({ runId: EVIL_ID })).errors;
    expect(errors.map((e) => e.message)).toEqual([EVIL_MESSAGE]);
    const [group] = await store.errorGroups({ since: 0, flow: EVIL_FLOW });
    expect(group?.count).toBe(1);
    const window = { since: START - DAY, until: START + DAY };
    const trends = await store.groupTrends({ fingerprints: [group!.fingerprint], grain: 'hour', ...window, flow: EVIL_FLOW });
    expect(trends.trends.get(group!.fingerprint)!.reduce((a, b) => a + b, 0)).toBe(1);
    const bins = await store.groupBins({ fingerprints: [group!.fingerprint], ...window, bins: 2, flow: EVIL_NAME });
    expect(bins.get(group!.fingerprint)!.reduce((a, b) => a + b, 0)).toBe(1);
    expect((await store.replayRun(EVIL_ID)).diffs).toEqual([]);
    expect((await store.resumePointForRun(EVIL_ID)).throughStep).toBe(0);
  });

  it('hostile keys and values written through settings and commands read back byte for byte', async () => {
    store = await seeded(await engine.fresh(), true);
    for (const [i, value] of EVIL.entries()) {
      // What any text is stored as (U+0000 becomes U+FFFD on both engines: storable.ts rule 1).
      const kept = storableText(value);
      // Setting names are checked words (settings.ts); their values are anything.
      await store.setSetting(`test.value-${i}`, value);
      expect(await store.getSetting(`test.value-${i}`)).toBe(kept);
      expect(await store.secret(`test.secret-${i}`, () => `made ${value}`)).toBe(`made ${kept}`);
      const commandId = `cmd ${i} ${value}`;
      await store.enqueueCommand({ commandId, runId: EVIL_ID, kind: 'cancel', reason: value });
      // Found by the id as given (the lookup stores-and-compares the same way) and by the id as kept.
      expect(await store.getCommand(commandId)).toMatchObject({ commandId: storableText(commandId), runId: EVIL_ID, reason: kept, state: 'pending' });
      expect((await store.pendingCommands([EVIL_ID])).map((c) => c.commandId)).toEqual([storableText(commandId)]);
      expect(await store.completeCommand(storableText(commandId), { accepted: false, message: value })).toBe(true);
      expect(await store.getCommand(commandId)).toMatchObject({ accepted: false, message: kept });
    }
    expect(await store.integrityCheck()).toEqual(['ok']);
  });
});
