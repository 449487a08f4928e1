import { describe, expect, it } from 'vitest';
import type { HivewatchApi, JournaledEvent } from '../../core/service/api.js';
import { fetchJournal } from './run-reads.js';

/** A run journal of `count` events and an api whose getEvents answers only when `release` is called, recording each ask. */
function journalApi(count: number) {
  const events: JournaledEvent[] = Array.from(
    { length: count },
    (_, i) => ({ runId: 'run_a', seq: i + 1, ts: i, wall: i, type: 'checkpointSaved' }) as unknown as JournaledEvent,
  );
  const asked: number[] = [];
  const waiting: (() => void)[] = [];
  const api = {
    getEvents: ({ afterSeq = 0, limit = 1_000 }: { runId: string; afterSeq?: number; limit?: number }) => {
      asked.push(afterSeq);
      return new Promise<JournaledEvent[]>((resolve) => waiting.push(() => resolve(events.filter((e) => e.seq > afterSeq).slice(0, limit))));
    },
  } as unknown as HivewatchApi;
  const releaseAll = async (): Promise<void> => {
    // Answers whatever is asked, microtask after microtask (no timer), until the reads settle.
    for (let turn = 0; turn < 100; turn++) {
      while (waiting.length > 0) waiting.shift()?.();
      await Promise.resolve();
    }
  };
  return { api, asked, events, releaseAll, waiting };
}

const page = (events: readonly JournaledEvent[], afterSeq: number): JournaledEvent[] => events.filter((e) => e.seq > afterSeq).slice(0, 1_000);

describe('fetchJournal', () => {
  it('asks every page up to the projection’s last seq at once, and returns the journal in order', async () => {
    const { api, asked, events, releaseAll, waiting } = journalApi(3_500);
    const done = fetchJournal(api, 'run_a', 3_500, page(events, 0));
    await Promise.resolve();
    // The three pages after the first are all asked before any of them is answered.
    expect(asked).toEqual([1_000, 2_000, 3_000]);
    expect(waiting).toHaveLength(3);
    await releaseAll();
    const journal = await done;
    expect(journal.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
  });

  it('reads on page by page past the last seq the projection knew (events journaled since)', async () => {
    const { api, asked, events, releaseAll } = journalApi(2_600);
    const done = fetchJournal(api, 'run_a', 2_000, page(events, 0));
    await releaseAll();
    const journal = await done;
    expect(journal.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(asked).toEqual([1_000, 2_000]);
  });

  it('asks nothing more when the first page is the whole journal', async () => {
    const { api, asked, events } = journalApi(999);
    expect((await fetchJournal(api, 'run_a', 999, page(events, 0))).length).toBe(999);
    expect(asked).toEqual([]);
  });
});
