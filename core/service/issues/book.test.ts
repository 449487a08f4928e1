import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions, type IssueTransition } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { postgresMissing } from '../../store/testing/test-databases.js';
import { skipTitle } from '../../testing/skip.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { IssueBook } from './book.js';

/**
 * Error issues on every engine: system transitions journaled once, operator
 * changes, the status replayed after a restart, and two hosts of one PostgreSQL database
 * journaling one regression once. Real stores, an injected clock.
 */

const { engines, start, stop } = testEngines('issues');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20, 12);
const RATE_LIMITED = { code: 'RUNTIME_RATE_LIMIT' as const, message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' };
const TITLE = 'RUNTIME_RATE_LIMIT · runtime fake was rate limited: <n> Too Many Requests';

/** A run that fails on a rate limit at `at`, and one that hits it once and then succeeds. */
const failedRun = (id: string, at: number): JournalBuilder =>
  new JournalBuilder(id, { start: at, flow: 'flows/api.prose', flowName: 'api' })
    .start()
    .runStep([{ attempts: [RATE_LIMITED] }])
    .fail();
const recoveredRun = (id: string, at: number): JournalBuilder =>
  new JournalBuilder(id, { start: at, flow: 'flows/other.prose', flowName: 'other' })
    .start()
    .runStep([{ attempts: [RATE_LIMITED, 'ok'] }])
    .complete();

describe.each(engines)('error issues on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const openAt = async (location: string): Promise<HivewatchStore> => {
    const store = await openStore({ path: location });
    open.push(store);
    return store;
  };
  const book = (store: HivewatchStore, clock: { now: number }, host = 'h1'): { book: IssueBook; seen: IssueTransition[] } => {
    const hub = new IssueTransitions();
    const seen: IssueTransition[] = [];
    hub.subscribe((t) => seen.push(t));
    return { book: new IssueBook({ store, hub, host, now: () => clock.now }), seen };
  };

  it('a first occurrence is new once; resolve, then an occurrence regresses it; the status replays after a restart', async () => {
    const location = await engine.fresh();
    const clock = { now: T0 + HOUR };
    let store = await openAt(location);
    await store.appendEvents(failedRun('run-a', T0).events);
    await store.appendEvents(recoveredRun('run-b', T0 + 60_000).events);
    const first = book(store, clock);
    await first.book.reconcile();
    await first.book.reconcile();
    const [group] = await store.errorGroups();
    expect(first.seen).toEqual([{ fingerprint: group!.fingerprint, title: TITLE, kind: 'new', at: group!.firstSeen, by: 'host:h1' }]);
    const id = first.seen[0]!.fingerprint;

    const issue = await first.book.get(id.slice(0, 6));
    expect(issue).toMatchObject({
      id,
      title: TITLE,
      status: 'unresolved',
      substatus: 'new',
      occurrences: 2,
      runs: 2,
      failures: 1,
      flows: 2,
      culprit: 'other › task 0',
    });
    // All time: the last 30 days by day, the current day still filling.
    expect(issue).toMatchObject({
      trendBucketMs: 24 * HOUR,
      trendPartial: true,
      period: { since: null, events: 2, failures: 1, previous: null, change: null },
    });
    expect(issue.trend).toHaveLength(31);
    expect(issue.trend.reduce((a, b) => a + b, 0)).toBe(2);
    // The last 24 hours: by the hour, ending at this whole hour (no partial bucket).
    const day = await first.book.get(id, { since: T0 + HOUR - 24 * HOUR });
    expect(day).toMatchObject({
      trendBucketMs: HOUR,
      trendStart: T0 + HOUR - 24 * HOUR,
      trendPartial: false,
      period: { events: 2, failures: 1, previous: { events: 0, failures: 0 }, change: null },
    });
    expect(day.trend).toHaveLength(24);

    clock.now = T0 + 2 * HOUR;
    const resolved = await first.book.setStatus({ id, action: 'resolve', by: 'cli', reason: 'deployed the fix' });
    expect(resolved).toMatchObject({
      changed: true,
      issue: { status: 'resolved', substatus: null, changedBy: 'cli', changedAt: T0 + 2 * HOUR, reason: 'deployed the fix' },
    });
    expect((await first.book.setStatus({ id, action: 'resolve', by: 'cli' })).changed).toBe(false);
    expect((await first.book.list({ status: 'resolved' })).items.map((i) => i.id)).toEqual([id]);
    expect((await first.book.list({ status: 'unresolved' })).items).toEqual([]);

    await store.appendEvents(failedRun('run-c', T0 + 3 * HOUR).events);
    clock.now = T0 + 3 * HOUR + 60_000;
    await first.book.reconcile();
    expect(first.seen.map((t) => [t.kind, t.by])).toEqual([
      ['new', 'host:h1'],
      ['resolved', 'cli'],
      ['regressed', 'host:h1'],
    ]);

    // Another process (or this one after a restart) folds the same log into the same status.
    await store.close();
    open.length = 0;
    store = await openAt(location);
    const again = book(store, clock, 'h2');
    await again.book.reconcile();
    expect(again.seen).toEqual([]);
    expect(await again.book.get(id)).toMatchObject({ status: 'unresolved', substatus: 'regressed', changedBy: 'host:h1', occurrences: 3, failures: 2 });
    expect((await again.book.list({ status: 'regressed' })).items.map((i) => i.id)).toEqual([id]);
    expect((await store.listRuns({ issue: id })).runs.map((r) => r.id).sort()).toEqual(['run-a', 'run-b', 'run-c']);
  });

  it('an ignore lapses after its count, its time, or an escalation, and the issue is unresolved again', async () => {
    const store = await openAt(await engine.fresh());
    const clock = { now: T0 + HOUR };
    await store.appendEvents(failedRun('run-a', T0).events);
    const { book: issues, seen } = book(store, clock);
    await issues.reconcile();
    const id = seen[0]!.fingerprint;

    await issues.setStatus({ id, action: 'ignore', untilCount: 2, by: 'window' });
    await store.appendEvents(failedRun('run-b', T0 + 2 * HOUR).events);
    clock.now = T0 + 3 * HOUR;
    expect((await issues.get(id)).status).toBe('ignored');
    await store.appendEvents(failedRun('run-c', T0 + 3 * HOUR).events);
    clock.now = T0 + 4 * HOUR;
    expect(await issues.get(id)).toMatchObject({
      status: 'unresolved',
      substatus: 'escalating',
      changedBy: 'host:h1',
      reason: 'ignored until 2 more occurrences: they happened',
    });

    await issues.setStatus({ id, action: 'ignore', forMs: 24 * HOUR });
    clock.now = T0 + 27 * HOUR;
    expect((await issues.get(id)).ignore).toEqual({ until: T0 + 28 * HOUR, count: null, escalating: false });
    clock.now = T0 + 28 * HOUR;
    expect(await issues.get(id)).toMatchObject({ status: 'unresolved', substatus: 'ongoing', reason: 'ignored for 24h: the time is up' });

    // A week later it comes back in a burst: 11 in an hour, over the forecast of a week seen in
    // 3 of its hours, one occurrence each (10 × 1).
    await issues.setStatus({ id, action: 'ignore', untilEscalating: true });
    const burst = T0 + 7 * 24 * HOUR;
    for (let i = 0; i < 11; i++) await store.appendEvents(failedRun(`run-burst-${i}`, burst + i * 60_000).events);
    clock.now = burst + 15 * 60_000;
    expect(await issues.get(id)).toMatchObject({
      status: 'unresolved',
      substatus: 'escalating',
      reason:
        "ignored until escalating: it escalates, 11 in the last hour, over its forecast of 10 (seen in 3 of the week's 168 hours, the busiest with 1: 10 × 1)",
    });
    expect(seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'escalating', 'ignored', 'reopened', 'ignored', 'escalating']);
    expect((await issues.list({ status: 'escalating' })).items.map((i) => i.id)).toEqual([id]);
  });

  it('refuses an unknown issue by name', async () => {
    const store = await openAt(await engine.fresh());
    const { book: issues } = book(store, { now: T0 });
    await expect(issues.get('feedface')).rejects.toMatchObject({ status: 404, apiCode: 'issue_not_found', message: 'no such issue "feedface"' });
    await expect(issues.setStatus({ id: 'nope', action: 'resolve' })).rejects.toMatchObject({ status: 404 });
  });
});

describe.runIf(engines.length > 1)(skipTitle('two hosts of one PostgreSQL database', engines.length > 1 ? null : postgresMissing), () => {
  const postgres = engines[1]!;
  it('journal a regression once, and only the host that journaled it tells its hook', async () => {
    const location = await postgres.fresh();
    const [a, b] = [await openStore({ path: location }), await openStore({ path: location })];
    try {
      const clock = { now: T0 + HOUR };
      const hubs = [new IssueTransitions(), new IssueTransitions()];
      const seen: IssueTransition[] = [];
      for (const hub of hubs) hub.subscribe((t) => seen.push(t));
      const books = [
        new IssueBook({ store: a, hub: hubs[0]!, host: 'h1', now: () => clock.now }),
        new IssueBook({ store: b, hub: hubs[1]!, host: 'h2', now: () => clock.now }),
      ];
      await a.appendEvents(failedRun('run-a', T0).events);
      await Promise.all(books.map((x) => x.reconcile()));
      const id = seen[0]!.fingerprint;
      await books[0]!.setStatus({ id, action: 'resolve', by: 'cli' });
      await b.appendEvents(failedRun('run-b', T0 + 2 * HOUR).events);
      clock.now = T0 + 3 * HOUR;
      for (let round = 0; round < 5; round++) await Promise.all(books.map((x) => x.reconcile()));
      expect(seen.map((t) => t.kind)).toEqual(['new', 'resolved', 'regressed']);
      expect((await a.issues.log(id)).map((r) => r.kind)).toEqual(['new', 'resolved', 'regressed']);
      expect(await books[1]!.get(id)).toMatchObject({ status: 'unresolved', substatus: 'regressed' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
