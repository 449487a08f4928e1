import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions, type IssueTransition } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { addAlertRule } from '../alerts/alerts-api.js';
import { AlertEngine } from '../alerts/engine.js';
import { TestReceiver } from '../alerts/testing.js';
import type { Issue } from '../api-issues.js';
import { IssueBook } from './book.js';

/**
 * Every transition of an issue against Sentry's documented rules (docs/triage.md "Status"), on
 * every engine: a first occurrence is new; resolved and seen again is regressed; an ignore "until
 * N more" that comes true is escalating and fires the escalation rule (getsentry/sentry#108084);
 * an ignore "for" a time that runs out is ongoing, never new, and alerts nobody; ignored forever
 * stays ignored; an operator's reopen is ongoing; escalating and regressed turn ongoing after 7
 * days. Real stores, a real alert engine posting to a receiver on 127.0.0.1, an injected clock.
 */

const { engines, start, stop } = testEngines('issue-states');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 10, 20, 12);
const CRASH = { code: 'RUNTIME_CRASHED' as const, message: 'runtime fake crashed: exit 3', origin: 'runtime:fake' };

interface Harness {
  store: HivewatchStore;
  book: IssueBook;
  engine: AlertEngine;
  receiver: TestReceiver;
  clock: { now: number };
  seen: IssueTransition[];
  /** A run that fails on the crash at `at` (one occurrence). */
  fail: (id: string, at: number) => Promise<void>;
  /** The issue now, with the system transitions due journaled and their alerts posted. */
  issue: (id: string) => Promise<Issue>;
  /** What the receivers were sent: the titles of the fired alerts (not the resolves' follow-ups), in the order they were decided. */
  alerts: () => string[];
}

const opened: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(opened.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(opened.stores.splice(0).map((s) => s.close()));
});

async function harness(location: string): Promise<Harness> {
  const clock = { now: T0 };
  const store = await openStore({ path: location, now: () => clock.now });
  opened.stores.push(store);
  const receiver = new TestReceiver();
  opened.receivers.push(receiver);
  const url = await receiver.start();
  const engine = new AlertEngine({ store, now: () => clock.now, host: 'h1' });
  for (const when of ['new-issue', 'regression', 'escalating']) await addAlertRule(store, { when, webhook: `${url}/${when}`, throttle: '0' }, 'test', T0);
  const hub = new IssueTransitions();
  const seen: IssueTransition[] = [];
  const queued: Promise<void>[] = [];
  hub.subscribe((t) => {
    seen.push(t);
    queued.push(engine.onIssueTransition(t));
  });
  const book = new IssueBook({ store, hub, host: 'h1', now: () => clock.now });
  return {
    store,
    book,
    engine,
    receiver,
    clock,
    seen,
    fail: async (id, at) => {
      await store.appendEvents(
        new JournalBuilder(id, { start: at, flow: 'user/api.prose', flowName: 'api' })
          .start()
          .runStep([{ attempts: [CRASH] }])
          .fail().events,
      );
    },
    issue: async (id) => {
      const issue = await book.get(id);
      await Promise.all(queued.splice(0));
      await engine.pump();
      return issue;
    },
    // Three receivers are posted to side by side, in no set order; each body says when its alert
    // was decided and its id sorts in the order of the decisions, which is the order asserted.
    alerts: () =>
      receiver
        .bodies<{ kind: string; title: string; at: string; delivery: string }>()
        .filter((b) => b.kind === 'fire')
        .sort((a, b) => a.at.localeCompare(b.at) || a.delivery.localeCompare(b.delivery))
        .map((b) => b.title.replace(/ · .*$/, '')),
  };
}

/** The issue's status and sub-state, and the kind of the last change: what a transition is judged by. */
const stateOf = (issue: Issue): string => `${issue.status}/${issue.substatus ?? '-'}`;

describe.each(engines)('issue states on $name', (engine) => {
  it('new, then ongoing after 72 hours; resolved, seen again: regressed for 7 days, then ongoing', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const [first] = await h.book.reconcile();
    const id = first!.fingerprint;
    expect(stateOf(await h.issue(id))).toBe('unresolved/new');
    expect(h.alerts()).toEqual(['New issue: RUNTIME_CRASHED']);
    h.clock.now = T0 + 73 * HOUR;
    expect(stateOf(await h.issue(id))).toBe('unresolved/ongoing');

    await h.book.setStatus({ id, action: 'resolve', by: 'cli' });
    expect(stateOf(await h.issue(id))).toBe('resolved/-');
    await h.fail('run-2', T0 + 73 * HOUR);
    h.clock.now = T0 + 74 * HOUR;
    expect(stateOf(await h.issue(id))).toBe('unresolved/regressed');
    expect(h.alerts()).toEqual(['New issue: RUNTIME_CRASHED', 'Regression: RUNTIME_CRASHED']);
    h.clock.now = T0 + 74 * HOUR + 7 * DAY;
    expect(stateOf(await h.issue(id))).toBe('unresolved/ongoing');
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'resolved', 'regressed']);
  });

  it('ignored until 2 more: one more keeps it ignored, the second brings it back escalating and fires the escalation rule; 7 days later ongoing', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const id = (await h.book.reconcile())[0]!.fingerprint;
    await h.book.setStatus({ id, action: 'ignore', untilCount: 2, by: 'cli' });
    await h.fail('run-2', T0 + 2 * HOUR);
    h.clock.now = T0 + 3 * HOUR;
    expect(stateOf(await h.issue(id))).toBe('ignored/-');
    await h.fail('run-3', T0 + 3 * HOUR);
    h.clock.now = T0 + 4 * HOUR;
    const back = await h.issue(id);
    // Young (4 hours) and rare (3 in all: no rate escalation): only the lapse makes it escalating.
    expect(back).toMatchObject({
      status: 'unresolved',
      substatus: 'escalating',
      changedBy: 'host:h1',
      reason: 'ignored until 2 more occurrences: they happened',
    });
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'escalating']);
    expect(h.alerts()).toEqual(['New issue: RUNTIME_CRASHED', 'Escalating issue: RUNTIME_CRASHED']);
    expect(h.receiver.requests.map((r) => r.path)).toEqual(['/new-issue', '/escalating']);
    expect((await h.book.list({ status: 'escalating' })).items.map((i) => i.id)).toEqual([id]);
    h.clock.now = T0 + 4 * HOUR + 7 * DAY;
    expect(stateOf(await h.issue(id))).toBe('unresolved/ongoing');
    expect(h.alerts()).toHaveLength(2);
  });

  it('ignored for 1h: ignored until the hour is up, then ongoing, though only hours old; nothing alerts', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const id = (await h.book.reconcile())[0]!.fingerprint;
    await h.issue(id);
    await h.book.setStatus({ id, action: 'ignore', forMs: HOUR, by: 'window' });
    await h.fail('run-2', T0 + HOUR + 60_000);
    h.clock.now = T0 + 2 * HOUR - 1;
    expect(stateOf(await h.issue(id))).toBe('ignored/-');
    h.clock.now = T0 + 2 * HOUR;
    expect(await h.issue(id)).toMatchObject({ status: 'unresolved', substatus: 'ongoing', reason: 'ignored for 1h: the time is up' });
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'reopened']);
    expect(h.alerts()).toEqual(['New issue: RUNTIME_CRASHED']);
  });

  it('ignored forever stays ignored through occurrences, bursts and time; an operator reopen makes it ongoing, not new', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const id = (await h.book.reconcile())[0]!.fingerprint;
    await h.book.setStatus({ id, action: 'ignore', by: 'cli' });
    const burst = T0 + 2 * DAY;
    for (let i = 0; i < 6; i++) await h.fail(`run-burst-${i}`, burst + i * 60_000);
    h.clock.now = burst + 10 * 60_000;
    expect(stateOf(await h.issue(id))).toBe('ignored/-');
    h.clock.now = T0 + 30 * DAY;
    expect(stateOf(await h.issue(id))).toBe('ignored/-');
    await h.book.setStatus({ id, action: 'reopen', by: 'cli' });
    h.clock.now = T0 + 30 * DAY + HOUR;
    expect(stateOf(await h.issue(id))).toBe('unresolved/ongoing');
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'reopened']);
    expect(h.alerts()).toEqual(['New issue: RUNTIME_CRASHED']);
  });

  it('ignored until escalating comes back escalating on a burst, and an unresolved issue escalates once per epoch', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const id = (await h.book.reconcile())[0]!.fingerprint;
    await h.book.setStatus({ id, action: 'ignore', untilEscalating: true, by: 'cli' });
    // 11 in an hour against a week seen in one hour, once: over its forecast of 10 × 1.
    const burst = T0 + 2 * DAY;
    for (let i = 0; i < 11; i++) await h.fail(`run-a-${i}`, burst + i * 60_000);
    h.clock.now = burst + 15 * 60_000;
    expect(await h.issue(id)).toMatchObject({
      status: 'unresolved',
      substatus: 'escalating',
      reason:
        "ignored until escalating: it escalates, 11 in the last hour, over its forecast of 10 (seen in 1 of the week's 168 hours, the busiest with 1: 10 × 1)",
    });
    // The same burst goes on: no second escalation in this epoch.
    for (let i = 11; i < 15; i++) await h.fail(`run-a-${i}`, burst + i * 60_000);
    h.clock.now = burst + 20 * 60_000;
    await h.issue(id);
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'escalating']);

    // Resolved, it regresses; a burst a week later escalates the unresolved issue by its rate.
    await h.book.setStatus({ id, action: 'resolve', by: 'cli' });
    await h.fail('run-b', burst + HOUR);
    h.clock.now = burst + 2 * HOUR;
    expect(stateOf(await h.issue(id))).toBe('unresolved/regressed');
    // A quiet week before it: its forecast is 10, and 11 in an hour are over it.
    const later = burst + 9 * DAY;
    for (let i = 0; i < 11; i++) await h.fail(`run-c-${i}`, later + i * 60_000);
    h.clock.now = later + 15 * 60_000;
    expect(stateOf(await h.issue(id))).toBe('unresolved/escalating');
    expect(h.seen.map((t) => t.kind)).toEqual(['new', 'ignored', 'escalating', 'resolved', 'regressed', 'escalating']);
    expect(h.alerts()).toEqual([
      'New issue: RUNTIME_CRASHED',
      'Escalating issue: RUNTIME_CRASHED',
      'Regression: RUNTIME_CRASHED',
      'Escalating issue: RUNTIME_CRASHED',
    ]);
  });

  it('refuses ignore durations and counts past their bounds, and stores nothing', async () => {
    const h = await harness(await engine.fresh());
    await h.fail('run-1', T0);
    h.clock.now = T0 + HOUR;
    const id = (await h.book.reconcile())[0]!.fingerprint;
    const refused = (input: { forMs?: number; untilCount?: number }) => h.book.setStatus({ id, action: 'ignore', ...input });
    // Past what a double holds exactly (the old float on SQLite, the stack trace on PostgreSQL): not a whole number of ms.
    await expect(refused({ forMs: 9_999_999_999_999 * DAY })).rejects.toMatchObject({ status: 400, message: 'forMs: must be a whole number' });
    await expect(refused({ forMs: 366 * DAY })).rejects.toMatchObject({ status: 400, message: 'forMs: must be at most 31536000000' });
    await expect(refused({ forMs: 59_999 })).rejects.toMatchObject({ status: 400, message: 'forMs: must be at least 60000' });
    await expect(refused({ untilCount: 1e20 })).rejects.toMatchObject({ status: 400, message: 'untilCount: must be a whole number' });
    await expect(refused({ untilCount: 1_000_000_001 })).rejects.toMatchObject({ status: 400, message: 'untilCount: must be at most 1000000000' });
    expect((await h.store.issues.log(id)).map((r) => r.kind)).toEqual(['new']);
    // The bounds themselves are exact on every engine.
    await h.book.setStatus({ id, action: 'ignore', forMs: 365 * DAY });
    expect((await h.issue(id)).ignore).toEqual({ until: T0 + HOUR + 365 * DAY, count: null, escalating: false });
    await h.book.setStatus({ id, action: 'ignore', untilCount: 1_000_000_000 });
    expect((await h.issue(id)).ignore).toEqual({ until: null, count: 1_000_000_000, escalating: false });
  });
});
