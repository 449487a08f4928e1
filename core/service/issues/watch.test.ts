import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IssueTransitions, type IssueTransition } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { IssueWatch, type IssueWatchScheduler } from './watch.js';
import { IssueBook } from './book.js';

/**
 * The service's issue watch on a real SQLite store: a committed batch with an error journals its
 * issue's `new` at once; time alone (an ignore "for 1h") needs the timer's pass; stopped, its
 * timer is gone and only a direct check (the service's checkIssues) journals.
 */

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20, 12);
const RATE_LIMITED = { code: 'RUNTIME_RATE_LIMIT' as const, message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' };
const failedRun = (id: string, at: number) =>
  new JournalBuilder(id, { start: at })
    .start()
    .runStep([{ attempts: [RATE_LIMITED] }])
    .fail();

describe('the issue watch', () => {
  const dirs: string[] = [];
  const stores: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('journals a new issue after the batch, a lapsed ignore on the timer, and after stop only on a direct check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-issue-watch-'));
    dirs.push(dir);
    const store = await openStore({ path: join(dir, 'hivewatch.db') });
    stores.push(store);
    const clock = { now: T0 + HOUR };
    const hub = new IssueTransitions();
    const seen: IssueTransition[] = [];
    hub.subscribe((t) => seen.push(t));
    const book = new IssueBook({ store, hub, host: 'h1', now: () => clock.now });
    const reported: unknown[] = [];
    const watch = new IssueWatch(book, (error) => reported.push(error));
    const ticks: (() => void)[] = [];
    const scheduler: IssueWatchScheduler = { every: (ms, tick) => (ticks.push(tick), () => ticks.splice(ticks.indexOf(tick), 1)) };
    watch.start(store, { intervalMs: 60_000, scheduler });

    await store.appendEvents(failedRun('run-a', T0).events);
    await expect.poll(() => seen.map((t) => t.kind), { timeout: 10_000 }).toEqual(['new']);
    const id = seen[0]!.fingerprint;

    await book.setStatus({ id, action: 'ignore', forMs: HOUR });
    clock.now = T0 + 2 * HOUR + 1;
    expect(ticks).toHaveLength(1);
    ticks[0]!();
    await expect.poll(() => seen.map((t) => t.kind), { timeout: 10_000 }).toEqual(['new', 'ignored', 'reopened']);

    await book.setStatus({ id, action: 'resolve' });
    await watch.stop();
    expect(ticks).toHaveLength(0);
    await store.appendEvents(failedRun('run-b', T0 + 3 * HOUR).events);
    await watch.check(); // A stopped watch still answers a direct call (the service's checkIssues), and finds the regression.
    expect(seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'reopened', 'resolved', 'regressed']);
    expect(reported).toEqual([]);
  });
});
