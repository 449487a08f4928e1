import { afterEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { openSqliteStore, type SqliteStore } from './index.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Wall time (migration 4): a virtual-clock run's events carry the run's clock in `ts`, which can
 * be hours ahead of the real time; the store journals the real time it wrote them at and buckets
 * errors, windows and the run's started/ended wall times by it.
 */

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const HOUR = 3_600_000;

let store: SqliteStore;
afterEach(() => store?.close());

function virtualRun(id: string): JournalBuilder {
  // The virtual clock starts a day ahead and jumps over each backoff (5 minutes here).
  return new JournalBuilder(id, { clock: 'virtual', start: NOW + 24 * HOUR, flow: 'flows/v.prose', flowName: 'v' })
    .start()
    .runStep([{ name: 'flaky', attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'slow' }, 'ok'], delayMs: 300_000 }])
    .complete();
}

describe('wall time of a virtual-clock run', () => {
  it('journals the real time, never a time in the future, and keeps the run clock in ts', () => {
    let clock = NOW;
    store = openSqliteStore({ path: ':memory:', now: () => clock });
    const seen: { events: readonly HivewatchEvent[]; walls: readonly number[] }[] = [];
    store.subscribe((events, walls) => seen.push({ events, walls }));
    const events = virtualRun('v1').events;
    store.appendEvents(events.slice(0, 3));
    clock = NOW + 900;
    store.appendEvents(events.slice(3));

    const run = store.getRun('v1')!.run;
    expect(run.startedAt).toBeGreaterThanOrEqual(NOW + 24 * HOUR);
    expect(run.durationMs).toBeGreaterThanOrEqual(300_000);
    expect(run.startedWall).toBe(NOW);
    expect(run.endedWall).toBe(NOW + 900);
    // Listeners are told each event's wall time; the events themselves keep the run's clock.
    expect(seen.map((s) => s.walls)).toEqual([[NOW, NOW, NOW], Array(events.length - 3).fill(NOW + 900)]);
    expect(store.getEvents('v1').map((e) => e.ts)).toEqual(events.map((e) => e.ts));

    // Errors are windowed and bucketed by wall time: in the last hour, not tomorrow.
    const [error] = store.listErrors({ runId: 'v1' }).errors;
    expect(error!.ts).toBeLessThanOrEqual(clock);
    expect(error!.timestamp).toBeGreaterThan(clock);
    expect(store.errorCounts({ by: 'code', since: NOW - HOUR, until: NOW + HOUR }).map((c) => [c.key, c.count])).toEqual([['RUNTIME_TIMEOUT', 1]]);
    expect(store.errorCounts({ by: 'code', since: NOW + HOUR })).toEqual([]);
    const series = store.errorSeries({ bucket: 'hour', stackBy: 'code', since: NOW - HOUR, until: NOW + HOUR });
    expect(series.series.map((s) => [s.key, s.total])).toEqual([['RUNTIME_TIMEOUT', 1]]);
    const [group] = store.errorGroups();
    expect([group!.firstSeen, group!.lastSeen]).toEqual([error!.ts, error!.ts]);

    expect(store.replayRun('v1').diffs).toEqual([]);
    expect(store.verifyAggregates().diffs).toEqual([]);
  });

  it('a real-clock run stores no separate wall time: its ts is the wall time', () => {
    store = openSqliteStore({ path: ':memory:', now: () => NOW + 7 * HOUR });
    const b = new JournalBuilder('r1', { start: NOW })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    store.appendEvents(b.events);
    const run = store.getRun('r1')!.run;
    expect([run.startedWall, run.endedWall]).toEqual([run.startedAt, run.endedAt]);
    expect(store.database.prepare('SELECT COUNT(*) AS n FROM events WHERE wall IS NOT NULL').get()).toEqual({ n: 0 });
  });

  it('imported walls (a journal copied from another database) are kept instead of the writer clock', () => {
    store = openSqliteStore({ path: ':memory:', now: () => NOW + 5 * HOUR });
    const events = virtualRun('v1').events;
    const walls = events.map((_, i) => (i < 3 ? NOW : NOW + 900));
    store.appendEvents(events, { importedWalls: walls });
    const run = store.getRun('v1')!.run;
    expect([run.startedWall, run.endedWall]).toEqual([NOW, NOW + 900]);
    expect(store.eventsAfterCommit(0).map((e) => e.wall)).toEqual(walls);
    expect(store.listErrors({ runId: 'v1' }).errors.map((e) => e.ts)).toEqual([NOW + 900]);
    expect(store.verifyAggregates().diffs).toEqual([]);
  });

  it('imported walls must be one number per event: otherwise nothing is written', () => {
    store = openSqliteStore({ path: ':memory:', now: () => NOW });
    const events = virtualRun('v1').events;
    expect(() => store.appendEvents(events, { importedWalls: [NOW] })).toThrow(`importedWalls has 1 wall times for ${events.length} events`);
    expect(() => store.appendEvents(events.slice(0, 2), { importedWalls: [NOW, Number.NaN] })).toThrow('importedWalls[1] must be a number, got NaN');
    expect(store.journalHead()).toBe(0);
  });
});
