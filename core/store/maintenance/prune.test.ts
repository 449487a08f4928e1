import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../index.js';
import { DAY } from '../rollups/rollups.js';
import { JournalBuilder } from '../testing/journal-builder.js';

let store: SqliteStore | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

const T0 = Date.UTC(2026, 0, 1);
const timeout = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'timeout after 5s' } as const;

describe('prune', () => {
  it('deletes old terminal runs with every row, keeps the rest and the resume sources, and fixes aggregates', () => {
    let now = T0;
    store = openSqliteStore({ path: ':memory:', now: () => now, recover: false });
    const old = new JournalBuilder('old', { start: T0 })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .complete();
    const source = new JournalBuilder('source', { start: T0 })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .runStep([{ attempts: [timeout] }])
      .fail();
    const resumed = new JournalBuilder('resumed', { start: T0 + 25 * DAY, resumedFrom: 'source', resumeStep: 1 })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .complete();
    const open = new JournalBuilder('open', { start: T0 }).start().runStep([{ attempts: [timeout, 'ok'] }]);
    const recent = new JournalBuilder('recent', { start: T0 + 25 * DAY })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .complete();
    for (const b of [old, source, resumed, open, recent]) store.appendEvents(b.events);
    const before = store.errorCounts({ by: 'code' });
    expect(before).toEqual([{ key: 'RUNTIME_TIMEOUT', count: 6, label: null }]);

    now = T0 + 30 * DAY;
    const report = store.prune({ olderThanMs: 7 * DAY });
    expect(report).toMatchObject({ runs: 1, errors: 1, events: old.events.length, keptForResume: 1 });
    expect(store.getRun('old')).toBeNull();
    expect(store.getEvents('old')).toEqual([]);
    for (const table of ['steps', 'tasks', 'attempts', 'errors', 'checkpoints']) {
      expect(store.database.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE run_id = 'old'`).get()).toEqual({ n: 0 });
    }
    for (const id of ['source', 'resumed', 'open', 'recent']) expect(store.getRun(id)).not.toBeNull();
    expect(store.errorCounts({ by: 'code' })).toEqual([{ key: 'RUNTIME_TIMEOUT', count: 5, label: null }]);
    expect(store.verifyAggregates().diffs).toEqual([]);
    expect(store.resumePointForRun('source').throughStep).toBe(1);

    // Once the resumed run is old too, the chain goes as a whole; aggregates reach zero rows.
    now = T0 + 60 * DAY;
    store.appendEvents([{ runId: 'open', seq: open.events.length + 1, ts: T0 + DAY, type: 'runCompleted', steps: 1 }]);
    const all = store.prune({ olderThanMs: DAY });
    expect(all.runs).toBe(4);
    expect(store.listRuns().runs).toEqual([]);
    for (const table of ['events', 'errors', 'error_rollups', 'error_rollups_hour', 'error_rollups_day', 'error_groups', 'run_hosts']) {
      expect(store.database.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
    }
  });

  it('recomputes first/last seen of a group that keeps members', () => {
    let now = T0;
    store = openSqliteStore({ path: ':memory:', now: () => now });
    const a = new JournalBuilder('a', { start: T0 })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .complete();
    const b = new JournalBuilder('b', { start: T0 + 10 * DAY })
      .start()
      .runStep([{ attempts: [timeout, 'ok'] }])
      .complete();
    store.appendEvents(a.events);
    store.appendEvents(b.events);
    const [group] = store.errorGroups();
    expect(group).toMatchObject({ count: 2, template: 'timeout after <n>s' });
    now = T0 + 12 * DAY;
    store.prune({ olderThanMs: 5 * DAY });
    const [after] = store.errorGroups();
    const bError = b.events.find((e) => e.type === 'errorOccurred')!;
    expect(after).toMatchObject({ fingerprint: group!.fingerprint, count: 1, firstSeen: bError.ts, lastSeen: bError.ts });
  });

  it('rejects a bad age', () => {
    store = openSqliteStore({ path: ':memory:' });
    expect(() => store!.prune({ olderThanMs: Number.NaN })).toThrow(/olderThanMs/);
    expect(() => store!.prune({ olderThanMs: -1 })).toThrow(/olderThanMs/);
  });
});
