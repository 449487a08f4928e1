import type { HivewatchEvent } from '../../core/service/api.js';

/**
 * When things happened, in wall time. An event's `ts` is on its run's clock:
 * the wall clock for a real run, but a virtual-clock run's clock jumps over every backoff and
 * runs ahead of the wall, so its times are durations and delays ("virtual 30s"), never "when".
 * "When" is the wall time the journal stored for each event (`getEvents` answers it as `wall`);
 * events that arrive live carry none, and get the time the window received them (the journal
 * time to within the stream's latency) until the journal is read again.
 */

/** A journal event with its wall time (absent on events the live stream delivered). */
export type TimedEvent = HivewatchEvent & { wall?: number };

/**
 * The wall time of an event: the journal's; for one the stream delivered, its ts or the time the
 * window received it, whichever is earlier (a real clock's ts is its wall time, a virtual clock's
 * runs ahead of it; the min also keeps a host whose clock is a little ahead from placing an
 * event in the future).
 */
export function wallOfEvent(event: TimedEvent, receivedAt: number): number {
  return event.wall ?? Math.min(event.ts, receivedAt);
}

/** An event as the run detail keeps it: always with a wall time. */
export function stampWall<E extends TimedEvent>(event: E, receivedAt: number): E & { wall: number } {
  return event.wall !== undefined ? (event as E & { wall: number }) : { ...event, wall: wallOfEvent(event, receivedAt) };
}

/** When an attempt started and ended, in wall time (`ended` null while it runs). */
export interface AttemptWall {
  started: number;
  ended: number | null;
}

export const attemptWallKey = (taskId: string, attempt: number): string => `${taskId}#${attempt}`;

/**
 * Each attempt's wall times from the journal: its `attemptStarted`, and the event that ended it
 * (succeeded, failed, cancelled by a sibling), else its task's end, else the run's end (an
 * attempt the run's cancel or failure stopped).
 */
export function attemptWalls(journal: readonly (HivewatchEvent & { wall: number })[]): Map<string, AttemptWall> {
  const out = new Map<string, AttemptWall>();
  const open = new Map<string, string[]>();
  const close = (key: string, wall: number): void => {
    const entry = out.get(key);
    if (entry && entry.ended === null) entry.ended = wall;
  };
  for (const e of journal) {
    switch (e.type) {
      case 'attemptStarted': {
        const key = attemptWallKey(e.taskId, e.attempt);
        out.set(key, { started: e.wall, ended: null });
        open.set(e.taskId, [...(open.get(e.taskId) ?? []), key]);
        break;
      }
      case 'attemptSucceeded':
      case 'attemptFailed':
      case 'attemptCancelled':
        close(attemptWallKey(e.taskId, e.attempt), e.wall);
        break;
      case 'taskSucceeded':
      case 'taskFailed':
        for (const key of open.get(e.taskId) ?? []) close(key, e.wall);
        open.delete(e.taskId);
        break;
      case 'runCompleted':
      case 'runFailed':
      case 'runCancelled':
      case 'runInterrupted':
        for (const keys of open.values()) for (const key of keys) close(key, e.wall);
        open.clear();
        break;
      default:
        break;
    }
  }
  return out;
}
