import { useEffect, useRef, useState } from 'react';
import type { JournaledEvent, RunDetail } from '../../core/service/api.js';
import { useApi, useRunsSnapshot, useRunsStore } from '../app/api-context.js';
import { RunSequencer } from '../live/sequencer.js';
import { stampWall } from '../lib/run-clock.js';
import { errorText } from '../lib/use-async.js';
import { fetchEvents, readRun } from './run-reads.js';

/**
 * One run's detail, kept live: the projection (tasks, attempts, steps) comes from getRun and is
 * re-read after new events (at most one read in flight, so a storm costs a few reads a second);
 * the journal is read once and then extended exactly once per event through a sequencer fed by
 * the runs store (which delivers the run's events in order) and by catch-up reads.
 */

export interface RunDetailState {
  phase: 'loading' | 'ready' | 'missing' | 'error';
  error: string | null;
  detail: RunDetail | null;
  /**
   * The journal so far, in seq order, each event with its wall time (the journal's; a live one's
   * when it arrived, run-clock.ts); mutated in place, read with `eventsVersion`.
   */
  events: readonly JournaledEvent[];
  eventsVersion: number;
  reload: () => void;
}

/**
 * `read` run one at a time: a call while it runs makes it run once more after (not once per call),
 * while `alive`. A failed read is dropped: the next call reads again.
 */
function oneAtATime(read: () => Promise<void>, alive: () => boolean): () => Promise<void> {
  let reading = false;
  let again = false;
  return async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        await read();
      } while (again && alive());
    } catch {
      // The next event reads again.
    } finally {
      reading = false;
    }
  };
}

export function useRunDetail(runId: string): RunDetailState {
  const api = useApi();
  const store = useRunsStore();
  const { resets } = useRunsSnapshot();
  const [phase, setPhase] = useState<RunDetailState['phase']>('loading');
  const [error, setError] = useState<string | null>(null);
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [eventsVersion, setEventsVersion] = useState(0);
  const [nonce, setNonce] = useState(0);
  const events = useRef<JournaledEvent[]>([]);

  useEffect(() => {
    let alive = true;
    const sequencer = new RunSequencer<JournaledEvent>(0);
    events.current = [];
    let catchingUp = false;

    const append = (ready: readonly JournaledEvent[]): void => {
      if (ready.length === 0) return;
      events.current.push(...ready);
      setEventsVersion((v) => v + 1);
      void refreshDetail();
    };

    const refreshDetail = oneAtATime(
      async () => {
        const next = await api.getRun({ runId });
        if (alive && next) setDetail(next);
      },
      () => alive,
    );

    const catchUp = async (): Promise<void> => {
      if (catchingUp) return;
      catchingUp = true;
      try {
        const missing = await fetchEvents(api, runId, sequencer.last);
        if (alive) append(sequencer.offer(missing));
      } catch {
        // Retried on the next gap.
      } finally {
        catchingUp = false;
      }
    };

    // Events that arrive while the first read is in flight wait here, then join the journal.
    let early: JournaledEvent[] | null = [];
    const unsubscribe = store.onRunEvents(runId, (delivered) => {
      const receivedAt = Date.now();
      const live = delivered.map((e) => stampWall(e, receivedAt));
      if (early) {
        early.push(...live);
        return;
      }
      append(sequencer.offer(live));
      if (sequencer.hasGap) void catchUp();
    });

    setPhase('loading');
    setError(null);
    void (async () => {
      try {
        const read = await readRun(api, runId);
        if (!alive) return;
        if (!read) {
          setPhase('missing');
          return;
        }
        const { first, journal } = read;
        const ready = sequencer.offer([...journal, ...(early ?? [])]);
        early = null;
        events.current.push(...ready);
        setDetail(first);
        setEventsVersion((v) => v + 1);
        setPhase('ready');
        // The projection may be older than the journal we read after it.
        if ((journal.at(-1)?.seq ?? 0) > first.lastSeq) void refreshDetail();
        if (sequencer.hasGap) void catchUp();
      } catch (e) {
        if (alive) {
          setError(errorText(e));
          setPhase('error');
        }
      }
    })();

    return () => {
      alive = false;
      unsubscribe();
    };
  }, [api, store, runId, nonce, resets]);

  return { phase, error, detail, events: events.current, eventsVersion, reload: () => setNonce((n) => n + 1) };
}
