import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './index.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Migration 7's run counts and trigram text index: whatever the runs table goes through
 * (inserts, status changes, error messages, prune), the counts equal counting the table and a
 * text search finds exactly what a LIKE scan of the four columns finds.
 */

const T0 = Date.UTC(2026, 0, 1);
let store: SqliteStore;
afterEach(() => store?.close());

function open(now = () => T0 + 86_400_000): SqliteStore {
  store = openSqliteStore({ path: ':memory:', recover: false, now });
  return store;
}

function countsInTable(): Record<string, number> {
  const rows = store.database.prepare('SELECT flow, status, COUNT(*) AS n FROM runs GROUP BY flow, status').all() as {
    flow: string;
    status: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [`${r.flow}|${r.status}`, r.n]));
}

function countsKept(): Record<string, number> {
  const rows = store.database.prepare('SELECT flow, status, count AS n FROM run_counts WHERE count > 0').all() as { flow: string; status: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [`${r.flow}|${r.status}`, r.n]));
}

/** What a LIKE scan finds (ASCII case-insensitive) in a run's four columns and its task prompts, newest first. */
function scan(text: string): string[] {
  const needle = text.toLowerCase();
  const rows = store.database
    .prepare(
      'SELECT r.id, r.flow, r.flow_name, r.last_error_message AS m, (SELECT group_concat(t.name, char(10)) FROM tasks AS t WHERE t.run_id = r.id) AS prompts FROM runs AS r ORDER BY r.started_at DESC, r.id DESC',
    )
    .all() as { id: string; flow: string; flow_name: string; m: string | null; prompts: string | null }[];
  return rows
    .filter((r) => [r.id, r.flow, r.flow_name, r.m ?? '', ...(r.prompts ?? '').split('\n')].some((f) => f.toLowerCase().includes(needle)))
    .map((r) => r.id);
}

function search(text: string): string[] {
  return store.listRuns({ text, limit: 1000 }).runs.map((r) => r.id);
}

function history(count: number, prefix = 'run'): void {
  for (let i = 0; i < count; i++) {
    const flow = ['flows/alpha.prose', 'flows/beta.prose'][i % 2] as string;
    const b = new JournalBuilder(`${prefix}-${String(i).padStart(4, '0')}`, { flow, flowName: flow.slice(6, -6), start: T0 + i * 1_000 }).start();
    if (i % 3 === 0)
      b.runStep([
        {
          name: `Summarise the release notes of v${i}`,
          attempts: [{ code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: `No "changes" in ${i}% of run ${i}` }],
        },
      ]).fail();
    else if (i % 3 === 1) b.complete();
    store.appendEvents(b.events);
  }
}

describe('run counts kept by triggers', () => {
  it('equal counting the table through inserts, status changes and prune', () => {
    open();
    history(30);
    expect(countsKept()).toEqual(countsInTable());
    expect(Object.values(countsKept()).reduce((a, b) => a + b, 0)).toBe(30);
    // A running run that completes moves from one count to another.
    const open1 = new JournalBuilder('run-open', { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + 500_000 }).start();
    store.appendEvents(open1.events);
    expect(countsKept()['flows/alpha.prose|running']).toBe(countsInTable()['flows/alpha.prose|running']);
    store.appendEvents(open1.complete().events.slice(open1.events.length - 1));
    expect(countsKept()).toEqual(countsInTable());
    const pruned = store.prune({ olderThanMs: 86_400_000 - 15_000 });
    expect(pruned.runs).toBeGreaterThan(0);
    expect(countsKept()).toEqual(countsInTable());
    expect(store.countRuns({}).total).toBe((store.database.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n);
  });
});

describe('text search through the trigram index', () => {
  it('finds what a LIKE scan finds: any case, quotes and LIKE wildcards taken literally, short texts too', () => {
    open();
    history(40);
    for (const text of [
      'no "changes"',
      'NO "CHANGES"',
      'run-001',
      'alpha',
      '% of run 1',
      'of run 2',
      'ph',
      '"',
      '_',
      'zzz',
      'release notes',
      'NOTES OF V12',
      'v3',
    ]) {
      expect(search(text), text).toEqual(scan(text));
    }
    // A prompt alone finds its run (text search covers name, error message and prompt).
    expect(search('release notes of v12')).toEqual(['run-0012']);
    expect(store.countRuns({ text: 'release notes' }).total).toBe(14);
    expect(search('% of run 12')).toEqual(['run-0012']);
    expect(search('_0012')).toEqual([]);
  });

  it('follows a run whose last error message changes and forgets pruned runs', () => {
    open();
    history(6);
    expect(search('of run 3')).toEqual(['run-0003']);
    const later = new JournalBuilder('run-late', { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + 60_000 }).start();
    store.appendEvents(later.events);
    expect(search('disk on fire')).toEqual([]);
    const before = later.events.length;
    later.runStep([{ attempts: [{ code: 'RUNTIME_CRASHED', origin: 'runtime:fake', message: 'disk on fire' }] }]).fail();
    store.appendEvents(later.events.slice(before));
    expect(search('DISK ON FIRE')).toEqual(['run-late']);
    store.prune({ olderThanMs: 1 });
    expect(search('of run 3')).toEqual([]);
    expect(store.database.prepare('SELECT COUNT(*) AS n FROM run_text_docs').get()).toEqual({
      n: (store.database.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n,
    });
    expect(store.database.prepare('SELECT COUNT(*) AS n FROM task_text_docs').get()).toEqual({
      n: (store.database.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number }).n,
    });
  });

  it('answers a text most runs match (past the index threshold) by scanning, with the same rows and pages', () => {
    open();
    history(2_100, 'bulk');
    const page = store.listRuns({ text: 'BULK-', limit: 50 });
    expect(page.runs.map((r) => r.id)).toEqual(scan('bulk-').slice(0, 50));
    expect(store.countRuns({ text: 'alpha' }).total).toBe(1_050);
    expect(search('of run 2097')).toEqual(['bulk-2097']);
  });
});
