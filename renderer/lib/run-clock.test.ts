import { describe, expect, it } from 'vitest';
import type { HivewatchEvent, JournaledEvent } from '../../core/service/api.js';
import { envelope, JournalBuilder } from '../testing/events.js';
import { attemptWalls, stampWall, wallOfEvent } from './run-clock.js';

const WALL = Date.UTC(2026, 10, 26, 1, 0, 0);

/** A virtual-clock journal whose run clock jumps 30 s per backoff while the wall moves 100 ms an event. */
function journal(): JournaledEvent[] {
  const j = new JournalBuilder('r1', WALL);
  const ref = (taskId: string) => ({ step: 1, ordinal: Number(taskId.split(':')[1]), taskId });
  j.start();
  j.add({
    type: 'stepStarted',
    step: 1,
    frontier: [
      { ordinal: 0, taskId: '1:0', name: 'Deploy' },
      { ordinal: 1, taskId: '1:1', name: 'Smoke' },
    ],
  });
  j.add({ ...ref('1:1'), type: 'attemptStarted', attempt: 1 });
  j.add({ ...ref('1:1'), type: 'attemptFailed', attempt: 1, durationMs: 0, error: envelope('RUNTIME_TIMEOUT') });
  j.add({ ...ref('1:1'), type: 'retryScheduled', attempt: 1, delayMs: 30_000, strategy: 'transient_linear', nextAttemptAt: WALL + 30_000 });
  j.add({ ...ref('1:1'), type: 'attemptStarted', attempt: 2 }, WALL + 30_000);
  j.add({ ...ref('1:0'), type: 'attemptStarted', attempt: 1 });
  j.add({ ...ref('1:0'), type: 'attemptFailed', attempt: 1, durationMs: 0, error: envelope('RUNTIME_CRASHED') });
  j.add({ ...ref('1:1'), type: 'attemptCancelled', attempt: 2, durationMs: 0, by: 'sibling' });
  j.add({ ...ref('1:2'), type: 'attemptStarted', attempt: 1 });
  j.add({ type: 'runFailed', error: envelope('RUNTIME_CRASHED') });
  return j.events.map((e, i) => ({ ...e, wall: WALL + i * 100 }));
}

describe('wall times of a run', () => {
  it('each attempt starts and ends when its events were journaled, not on the run’s virtual clock', () => {
    const walls = attemptWalls(journal());
    expect(walls.get('1:1#1')).toEqual({ started: WALL + 200, ended: WALL + 300 });
    // Its run clock said 30 s later; the wall, half a second.
    expect(walls.get('1:1#2')).toEqual({ started: WALL + 500, ended: WALL + 800 });
    expect(walls.get('1:0#1')).toEqual({ started: WALL + 600, ended: WALL + 700 });
    // An attempt the run's end stopped ends with the run.
    expect(walls.get('1:2#1')).toEqual({ started: WALL + 900, ended: WALL + 1_000 });
  });

  it('a live attempt has no end yet; a task’s end closes the attempts it left open', () => {
    const events = journal().slice(0, 3);
    expect(attemptWalls(events).get('1:1#1')).toEqual({ started: WALL + 200, ended: null });
    const closed = [
      ...events,
      {
        runId: 'r1',
        seq: 4,
        ts: WALL,
        wall: WALL + 450,
        type: 'taskFailed',
        step: 1,
        ordinal: 1,
        taskId: '1:1',
        attempts: 1,
        error: envelope('SYSTEM_CANCELLED'),
        cancelled: true,
      } as JournaledEvent,
    ];
    expect(attemptWalls(closed).get('1:1#1')).toEqual({ started: WALL + 200, ended: WALL + 450 });
  });

  it('an event from the live stream takes the journal’s wall when it has one, else the earlier of its ts and its arrival', () => {
    const base = { runId: 'r1', seq: 1, type: 'stepFinished', step: 1 } as const;
    const virtualAhead = { ...base, ts: WALL + 3_600_000 } as HivewatchEvent;
    expect(wallOfEvent(virtualAhead, WALL + 5)).toBe(WALL + 5);
    expect(wallOfEvent({ ...base, ts: WALL } as HivewatchEvent, WALL + 40)).toBe(WALL);
    expect(wallOfEvent({ ...virtualAhead, wall: WALL + 1 }, WALL + 5)).toBe(WALL + 1);
    expect(stampWall(virtualAhead, WALL + 5).wall).toBe(WALL + 5);
    const stamped = { ...virtualAhead, wall: WALL + 2 };
    expect(stampWall(stamped, WALL + 5)).toBe(stamped);
  });
});
