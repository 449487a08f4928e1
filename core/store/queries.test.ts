import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../base/events.js';
import { RUN_SORT_KEYS } from '../common/run-filter.js';
import { openSqliteStore, type SqliteStore, type RunRow, type RunSort } from './index.js';
import { JournalBuilder, prng } from './testing/journal-builder.js';
import { checkpointStates, runOrderSql } from './queries/runs.js';

let store: SqliteStore;
const T0 = Date.UTC(2026, 0, 1);

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:', recover: false });
  const random = prng(3);
  // 57 runs over three flows; some share start times so ties exercise the id tie-break.
  for (let i = 0; i < 57; i += 1) {
    const flow = ['flows/alpha.prose', 'flows/beta.prose', 'flows/gamma.prose'][i % 3]!;
    const b = new JournalBuilder(`run-${String(i).padStart(2, '0')}`, {
      flow,
      flowName: flow.slice(6, -6),
      start: T0 + Math.floor(i / 3) * 60_000,
      tick: 1 + Math.floor(random() * 1000),
    }).start();
    const steps = 1 + Math.floor(random() * 3);
    for (let s = 0; s < steps; s += 1) {
      b.runStep([{ attempts: random() < 0.4 ? [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: `timeout ${i}` }, 'ok'] : ['ok'] }]);
    }
    const end = random();
    if (end < 0.2) b.runStep([{ attempts: [{ code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: `no changes in run ${i}` }] }]).fail();
    else if (end < 0.3) b.cancelBetweenSteps();
    else if (end < 0.9) b.complete();
    store.appendEvents(b.events);
  }
});
afterEach(() => store.close());

function pageAll(sort: RunSort, limit: number, extra: Parameters<SqliteStore['listRuns']>[0] = {}): string[] {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = store.listRuns({ ...extra, sort, limit, cursor });
    ids.push(...page.runs.map((r) => r.id));
    cursor = page.nextCursor;
    pages += 1;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return ids;
}

describe('listRuns', () => {
  it('returns every run exactly once over cursor pages, for every sort and page size', () => {
    const all = store.listRuns({ limit: 1000 }).runs.map((r) => r.id);
    expect(all).toHaveLength(57);
    for (const sort of RUN_SORT_KEYS.flatMap((k) => [k, `-${k}`] as const)) {
      for (const limit of [1, 5, 7, 56, 57, 100]) {
        const ids = pageAll(sort, limit);
        expect(ids, `${sort} by ${limit}`).toHaveLength(57);
        expect(new Set(ids).size).toBe(57);
        expect(ids).toEqual(store.listRuns({ sort, limit: 1000 }).runs.map((r) => r.id));
      }
    }
    const durations = store.listRuns({ sort: '-duration', limit: 1000 }).runs.map((r) => r.durationMs ?? -1);
    expect([...durations].sort((a, b) => b - a)).toEqual(durations);
  });

  it('filters by status, flow (path or name), text and time, also across pages', () => {
    const statuses: RunStatus[] = ['failed', 'cancelled'];
    const failedOrCancelled = pageAll('-started', 4, { status: statuses });
    expect(failedOrCancelled.length).toBeGreaterThan(0);
    for (const id of failedOrCancelled) expect(statuses).toContain(store.getRun(id)!.run.status);
    const running = store.listRuns({ status: 'running', limit: 1000 }).runs;
    expect(running.every((r) => r.status === 'running')).toBe(true);
    expect(store.listRuns({ flow: 'beta', limit: 1000 }).runs.map((r) => r.id)).toEqual(
      store.listRuns({ flow: 'flows/beta.prose', limit: 1000 }).runs.map((r) => r.id),
    );
    expect(store.listRuns({ flow: 'beta', limit: 1000 }).runs).toHaveLength(19);
    expect(
      store
        .listRuns({ text: 'RUN-1', limit: 1000 })
        .runs.map((r) => r.id)
        .sort(),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `run-1${i}`));
    const withError = store.listRuns({ text: 'no changes', limit: 1000 }).runs;
    expect(withError.every((r) => r.lastErrorMessage?.includes('no changes'))).toBe(true);
    const window = store.listRuns({ since: T0 + 5 * 60_000, until: T0 + 7 * 60_000, sort: 'started', limit: 1000 }).runs;
    expect(window.map((r) => r.id).sort()).toEqual(['run-15', 'run-16', 'run-17', 'run-18', 'run-19', 'run-20']);
    expect(window.map((r) => r.startedAt)).toEqual(window.map((r) => r.startedAt).sort((a, b) => a - b));
  });

  it('orders status (active first) and flow (by name) with ties newest first, and steps by current step', () => {
    const all = store.listRuns({ limit: 1000 }).runs;
    const rank = (r: RunRow): number => ['running', 'cancelling', 'queued', 'failed', 'interrupted', 'cancelled', 'completed'].indexOf(r.status);
    const newest = (a: RunRow, b: RunRow): number => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1);
    const expected = (key: (r: RunRow) => number | string): string[] =>
      [...all].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : newest(a, b))).map((r) => r.id);
    expect(pageAll('status', 6)).toEqual(expected(rank));
    expect(pageAll('flow', 6)).toEqual(expected((r) => r.flowName));
    expect(pageAll('-status', 6)).toEqual(expected(rank).reverse());
    const steps = store.listRuns({ sort: 'step', limit: 1000 }).runs.map((r) => r.currentStep);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(steps).size).toBeGreaterThan(1);
  });

  it('filters by the last error code and category; counts per status and flow follow the other filters', () => {
    const failedWithNoChanges = store.listRuns({ code: 'AGENT_NO_CHANGES', limit: 1000 }).runs;
    expect(failedWithNoChanges.length).toBeGreaterThan(0);
    expect(failedWithNoChanges.every((r) => r.lastErrorCode === 'AGENT_NO_CHANGES')).toBe(true);
    expect(store.listRuns({ category: 'agent', limit: 1000 }).runs.map((r) => r.id)).toEqual(failedWithNoChanges.map((r) => r.id));

    const all = store.listRuns({ limit: 1000 }).runs;
    const counts = store.countRuns({ flow: 'beta', status: 'failed' });
    const beta = all.filter((r) => r.flowName === 'beta');
    expect(counts.total).toBe(beta.filter((r) => r.status === 'failed').length);
    // Status chips count under the flow filter, ignoring the status filter itself.
    const byStatus: Record<string, number> = {};
    for (const r of beta) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    expect(counts.byStatus).toEqual(byStatus);
    // The flow picker counts failed runs of every flow.
    const failedPerFlow = ['alpha', 'beta', 'gamma'].map((name) => all.filter((r) => r.flowName === name && r.status === 'failed').length);
    expect(Object.fromEntries(counts.byFlow.map((f) => [f.flowName, f.count]))).toEqual(
      Object.fromEntries(['alpha', 'beta', 'gamma'].map((name, i) => [name, failedPerFlow[i]]).filter(([, n]) => n !== 0)),
    );
    expect(store.countRuns({ status: [] })).toMatchObject({ total: 0 });
  });

  it('reads each sorted page from an index, without sorting the table', () => {
    for (const sort of RUN_SORT_KEYS.flatMap((k) => [k, `-${k}`] as const)) {
      const page = store.listRuns({ sort, limit: 2 });
      const plan = store.database.prepare(`EXPLAIN QUERY PLAN SELECT * FROM runs ORDER BY ${runOrderSql(sort)} LIMIT 3`).all() as { detail: string }[];
      expect(plan.map((p) => p.detail).join('; '), sort).not.toMatch(/TEMP B-TREE/);
      expect(page.runs).toHaveLength(2);
    }
  });

  it('rejects unknown sorts, statuses and foreign cursors', () => {
    expect(() => store.listRuns({ sort: 'id; DROP TABLE runs' as RunSort })).toThrow(/unknown sort/);
    expect(() => store.listRuns({ status: 'bogus' as RunStatus })).toThrow(/unknown run status/);
    const cursor = store.listRuns({ sort: 'started', limit: 2 }).nextCursor!;
    expect(() => store.listRuns({ sort: '-started', cursor })).toThrow(/invalid cursor/);
    expect(() => store.listRuns({ cursor: 'not-a-cursor' })).toThrow(/invalid cursor/);
  });
});

describe('errors', () => {
  it('lists occurrences newest first over cursor pages, each exactly once', () => {
    const total = (store.database.prepare('SELECT COUNT(*) AS n FROM errors').get() as { n: number }).n;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = store.listErrors({ limit: 3, cursor });
      seen.push(...page.errors.map((e) => `${e.runId}#${e.seq}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('groups by fingerprint, with occurrences by fingerprint and counts by run and task', () => {
    const groups = store.errorGroups();
    const timeouts = groups.find((g) => g.code === 'RUNTIME_TIMEOUT')!;
    expect(timeouts.template).toBe('timeout <n>');
    expect(groups.filter((g) => g.code === 'RUNTIME_TIMEOUT')).toHaveLength(1);
    const occurrences = store.listErrors({ fingerprint: timeouts.fingerprint, limit: 1000 }).errors;
    expect(occurrences).toHaveLength(timeouts.count);
    expect(Math.min(...occurrences.map((e) => e.ts))).toBe(timeouts.firstSeen);
    expect(Math.max(...occurrences.map((e) => e.ts))).toBe(timeouts.lastSeen);
    // A window (or flow filter) groups the errors in it.
    const windowed = store.errorGroups({ since: timeouts.lastSeen, flow: occurrences[0]!.flow });
    expect(windowed.find((g) => g.fingerprint === timeouts.fingerprint)?.count).toBe(1);

    const byRun = store.errorCounts({ by: 'run' });
    expect(byRun.reduce((n, c) => n + c.count, 0)).toBe(groups.reduce((n, g) => n + g.count, 0));
    expect(byRun[0]!.label).toMatch(/alpha|beta|gamma/);
    const byTask = store.errorCounts({ by: 'task', category: 'agent' });
    expect(byTask.every((c) => c.key === `${c.runId}/${c.taskId}`)).toBe(true);
    // A flow filter takes the flow file or its name.
    expect(store.errorCounts({ by: 'code', flow: 'beta' })).toEqual(store.errorCounts({ by: 'code', flow: 'flows/beta.prose' }));
    expect(store.errorCounts({ by: 'code', flow: 'beta' }).length).toBeGreaterThan(0);
    expect(store.listErrors({ flow: 'gamma', limit: 1000 }).errors.every((e) => e.flow === 'flows/gamma.prose')).toBe(true);
    expect(store.errorGroups({ flow: 'alpha' }).length).toBeGreaterThan(0);
    const byFlow = store.errorCounts({ by: 'flow' });
    expect(byFlow.map((c) => c.label).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });
});

describe('checkpointStates', () => {
  it('lays deltas over the state before them; a whole-state row replaces it (rows from before version 3)', () => {
    const row = (step: number, channels: Record<string, unknown>, delta: boolean) => ({ runId: 'r', step, ts: step, channels, delta });
    expect(checkpointStates([row(2, { b: 2 }, true), row(1, { a: 1 }, false), row(3, { a: 3 }, true), row(4, { c: 4 }, false)])).toEqual([
      { step: 1, channels: { a: 1 } },
      { step: 2, channels: { a: 1, b: 2 } },
      { step: 3, channels: { a: 3, b: 2 } },
      { step: 4, channels: { c: 4 } },
    ]);
  });
});
