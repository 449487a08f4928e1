import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './index.js';
import { JournalBuilder } from './testing/journal-builder.js';

const EVIL = [
  "'",
  '"',
  "it's",
  '%',
  '_',
  '\\',
  ';',
  "' OR 1=1 --",
  '" OR ""="',
  "x'; DROP TABLE runs; --",
  'DROP TABLE errors',
  "1); DELETE FROM events; --",
  '%_%',
  '*/ SELECT * FROM runs /*',
];

const EVIL_FLOW = "flows/it's 100%_done; DROP TABLE runs; --.prose";
const EVIL_NAME = "' OR 'a'='a";

let store: SqliteStore;
const tables = (): string[] =>
  (store.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:', recover: false });
  store.appendEvents(
    new JournalBuilder('plain', { flow: 'flows/plain.prose', flowName: 'plain' })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'plain timeout' }, 'ok'] }])
      .complete().events,
  );
  store.appendEvents(
    new JournalBuilder("evil'; DROP TABLE runs; --", { flow: EVIL_FLOW, flowName: EVIL_NAME })
      .start()
      .runStep([{ attempts: [{ code: 'USER_THROWN', origin: 'user', message: "100% of '_' rows; DROP TABLE errors" }] }])
      .fail().events,
  );
});
afterEach(() => store.close());

describe('filter values are data, never SQL', () => {
  it('hostile values match nothing and break nothing, through every query', () => {
    const before = tables();
    const counts = (): unknown => store.database.prepare('SELECT (SELECT COUNT(*) FROM runs) AS r, (SELECT COUNT(*) FROM events) AS e, (SELECT COUNT(*) FROM errors) AS x').get();
    const rowsBefore = counts();
    for (const value of EVIL) {
      expect(store.listRuns({ flow: value }).runs, value).toEqual([]);
      expect(store.getRun(value)).toBeNull();
      expect(store.getEvents(value)).toEqual([]);
      expect(() => store.resumePointForRun(value)).toThrow(/no run/);
      for (const by of ['category', 'origin', 'code', 'flow', 'run', 'task'] as const) {
        for (const filter of ['flow', 'category', 'origin', 'code'] as const) {
          expect(store.errorCounts({ by, [filter]: value }), `${by} ${filter}=${value}`).toEqual([]);
        }
      }
      expect(store.errorSeries({ bucket: 'hour', stackBy: 'origin', since: 0, until: 3_600_000 * 24, code: value }).series).toEqual([]);
      expect(store.errorGroups({ origin: value })).toEqual([]);
      expect(store.errorGroups({ flow: value, since: 0 })).toEqual([]);
      for (const key of ['fingerprint', 'runId', 'taskId', 'category'] as const) {
        expect(store.listErrors({ [key]: value }).errors).toEqual([]);
      }
    }
    expect(tables()).toEqual(before);
    expect(counts()).toEqual(rowsBefore);
    expect(store.integrityCheck()).toEqual(['ok']);
  });

  it('hostile values stored as data are found exactly, and LIKE wildcards are literal', () => {
    const evilId = "evil'; DROP TABLE runs; --";
    expect(store.listRuns({ flow: EVIL_FLOW }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.listRuns({ flow: EVIL_NAME }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.getRun(evilId)!.run.flowName).toBe(EVIL_NAME);
    expect(store.listRuns({ text: '%' }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.listRuns({ text: '_' }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.listRuns({ text: "'" }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.listRuns({ text: '100%_done' }).runs.map((r) => r.id)).toEqual([evilId]);
    expect(store.listRuns({ text: '100%Xdone' }).runs).toEqual([]);
    expect(store.listRuns({ text: 'plain' }).runs.map((r) => r.id)).toEqual(['plain']);
    expect(store.errorCounts({ by: 'flow', flow: EVIL_FLOW })).toEqual([{ key: EVIL_FLOW, count: 1, label: EVIL_NAME }]);
    expect(store.errorCounts({ by: 'run', flow: EVIL_FLOW }).map((c) => c.key)).toEqual([evilId]);
    const errors = store.listErrors({ runId: evilId }).errors;
    expect(errors.map((e) => e.message)).toEqual(["100% of '_' rows; DROP TABLE errors"]);
    expect(store.errorGroups({ since: 0, flow: EVIL_FLOW }).map((g) => g.count)).toEqual([1]);
    expect(store.replayRun(evilId).diffs).toEqual([]);
    expect(store.resumePointForRun(evilId).throughStep).toBe(0);
  });
});
