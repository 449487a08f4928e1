import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions, type IssueTransition } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { retriedRun as retried } from '../../store/testing/retried-run.js';
import { IssueBook } from './book.js';

/**
 * Escalating is a forecast (docs/triage.md), on every engine, through the issue book on a real
 * store: a steady issue (4 an hour for 8 days) is never escalating, its forecast 24 worked out
 * as forecast.test.ts does by hand; a 10× jump in the last hour escalates it once, with
 * the figures in the change's reason and the issue's why; a new issue with the same jump stays
 * `new`. Occurrences are a recovered run's retried attempts, one second apart.
 */

const { engines, start, stop } = testEngines('issue-escalation');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 12);

describe.each(engines)('the escalating forecast on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  async function harness(clock: { now: number }): Promise<{ store: HivewatchStore; book: IssueBook; seen: IssueTransition[] }> {
    const store = await openStore({ path: await engine.fresh(), now: () => clock.now });
    open.push(store);
    const hub = new IssueTransitions();
    const seen: IssueTransition[] = [];
    hub.subscribe((t) => seen.push(t));
    return { store, book: new IssueBook({ store, hub, host: 'h1', now: () => clock.now }), seen };
  }

  it('a steady issue never escalates; a 10× jump does, once, with the figures that made it fire', async () => {
    const clock = { now: T0 };
    const { store, book, seen } = await harness(clock);
    // 4 a hour, every hour of 8 days and of the hour now (at :01).
    const hours = 8 * 24;
    await store.appendEvents(Array.from({ length: hours + 1 }, (_, h) => retried(`run-${h}`, T0 + h * HOUR + 60_000, 4)).flat());
    clock.now = T0 + hours * HOUR + 30 * 60_000;
    await book.reconcile();
    const id = seen[0]!.fingerprint;
    const steady = await book.get(id);
    expect(steady).toMatchObject({
      status: 'unresolved',
      substatus: 'ongoing',
      escalation: { lastHour: 4, forecast: 24, basis: 'steady', hours: 168, max: 4, mean: 4, over: false },
      why: 'ongoing: first seen more than 72 hours ago; 4 events in the last hour, forecast 24',
    });
    expect((await book.list({ status: 'escalating' })).items).toEqual([]);

    // The next hour holds 40: ten times its rate, over the forecast of 24.
    await store.appendEvents(retried('run-jump', T0 + (hours + 1) * HOUR + 60_000, 40));
    clock.now = T0 + (hours + 1) * HOUR + 30 * 60_000;
    const jumped = await book.get(id);
    expect(jumped).toMatchObject({
      substatus: 'escalating',
      escalation: { lastHour: 40, forecast: 24, over: true },
      why: 'escalating: 40 events in the last hour, forecast 24',
      reason: '40 in the last hour, over its forecast of 24 (seen every hour of the week, mean 4.0, busiest 4)',
      changedBy: 'host:h1',
    });
    await book.reconcile();
    expect(seen.map((t) => t.kind)).toEqual(['new', 'escalating']);
    expect((await book.list({ status: 'escalating' })).items.map((i) => i.id)).toEqual([id]);
  });

  it('a new issue with the same jump is new, not escalating', async () => {
    const clock = { now: T0 };
    const { store, book, seen } = await harness(clock);
    await store.appendEvents(retried('run-first', T0 + 60_000, 3));
    await store.appendEvents(retried('run-jump', T0 + 2 * HOUR + 60_000, 40));
    clock.now = T0 + 2 * HOUR + 30 * 60_000;
    await book.reconcile();
    const issue = await book.get(seen[0]!.fingerprint);
    // Its week (one hour of 3, before the last hour began) forecasts 10 × 3 = 30: the 40 are over
    // it, and it is still new.
    expect(issue).toMatchObject({ substatus: 'new', escalation: { lastHour: 40, forecast: 30, basis: 'sparse', over: true } });
    expect(issue.why).toBe('new: first seen less than 72 hours ago and nobody has acted on it; 40 events in the last hour, forecast 30');
    expect(seen.map((t) => t.kind)).toEqual(['new']);
  });
});
