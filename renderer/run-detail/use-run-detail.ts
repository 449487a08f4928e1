import { useEffect, useRef, useState } from 'react';
import type { HivewatchApi, JournaledEvent, RunDetail } from '../../core/service/api.js';
import { useApi, useRunsSnapshot, useRunsStore } from '../app/api-context.js';
import { RunSequencer } from '../live/sequencer.js';
import { stampWall } from '../lib/run-clock.js';
import { errorText } from '../lib/use-async.js';

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

const PAGE = 1_000;

/** Every event of a run after `afterSeq`, page by page. */
export async function fetchEvents(api: HivewatchApi, runId: string, afterSeq = 0): Promise<JournaledEvent[]> {
  const out: JournaledEvent[] = [];
  let after = afterSeq;
  for (;;) {
    const page = await api.getEvents({ runId, afterSeq: after, limit: PAGE });
    out.push(...page);
    const last = page.at(-1);
    if (page.length < PAGE || !last) return out;
    after = last.seq;
  }
}

/**
 * The whole journal of a run whose projection says it reached `lastSeq`, given its first page
 * (asked beside getRun, in the same batch). A run's seqs run 1, 2, 3 … (the journal's rule the
 * sequencer also relies on), so page k starts after seq k · PAGE and every page is asked at once
 * instead of one after another; events journaled after `lastSeq` was read follow page by page.
 * Should a page not be what its seqs promise, the sequencer still orders and dedupes, and a hole
 * is caught up like a live one.
 */
export async function fetchJournal(api: HivewatchApi, runId: string, lastSeq: number, first: JournaledEvent[]): Promise<JournaledEvent[]> {
  if (first.length < PAGE) return first;
  const starts: number[] = [];
  for (let after = PAGE; after < lastSeq; after += PAGE) starts.push(after);
  const pages = [first, ...(await Promise.all(starts.map((afterSeq) => api.getEvents({ runId, afterSeq, limit: PAGE }))))];
  const out = pages.flat();
  const last = pages.at(-1) ?? [];
  if (last.length === PAGE) out.push(...(await fetchEvents(api, runId, last.at(-1)?.seq ?? 0)));
  return out;
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
        // Asked in one turn, so they travel together, the projection read first as before; a
        // missing run's events answer 404, which only matters when the run is there.
        const runRead = api.getRun({ runId });
        const firstPage = api.getEvents({ runId, afterSeq: 0, limit: PAGE });
        firstPage.catch(() => undefined);
        const first = await runRead;
        if (!alive) return;
        if (!first) {
          setPhase('missing');
          return;
        }
        const journal = await fetchJournal(api, runId, first.lastSeq, await firstPage);
        if (!alive) return;
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
