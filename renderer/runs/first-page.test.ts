import { describe, expect, it } from 'vitest';
import { FakeApi } from '../testing/fake-api.js';
import { JournalBuilder } from '../testing/events.js';
import { manualScheduler } from '../live/frame-batcher.js';
import { RunsStore } from '../live/runs-store.js';
import { prefetchFirstRuns, RUNS_PAGE_SIZE } from './first-page.js';
import { parseRunsQuery } from './runs-query.js';
import { RunsView } from './runs-view.js';

const NOW = 1_000_000;

const settle = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

function setup() {
  const api = new FakeApi();
  for (let i = 1; i <= 3; i++) {
    const run = new JournalBuilder(`run_${i}`, i * 1_000);
    run.start();
    run.add({ type: 'runCompleted', steps: 0 });
    api.record(run.events);
  }
  const store = new RunsStore(api, { scheduler: manualScheduler() });
  const view = async (hashQuery: string, now = NOW): Promise<RunsView> => {
    const v = new RunsView(api, store, parseRunsQuery(new URLSearchParams(hashQuery)), { now: () => now, setTimer: () => undefined });
    v.start();
    await settle();
    return v;
  };
  const listed = (): number => api.calls.filter((c) => c === 'listRuns').length;
  return { api, view, listed };
}

describe('the Runs first page asked for at start', () => {
  it("is the view's first read when it asks the same, taken once", async () => {
    const { api, view, listed } = setup();
    prefetchFirstRuns(api, ['runs'], new URLSearchParams('status=completed&sort=-started'), NOW);
    expect(listed()).toBe(1);
    const first = await view('status=completed', NOW + 50);
    expect(first.getState().rows.map((r) => r.id)).toEqual(['run_3', 'run_2', 'run_1']);
    expect(listed()).toBe(1);
    // A second view (a stream reset, the same screen again) reads afresh.
    await view('status=completed', NOW + 60);
    expect(listed()).toBe(2);
  });

  it('is not taken by another query, nor once stale, and is not asked for a time range or another screen', async () => {
    const { api, view, listed } = setup();
    prefetchFirstRuns(api, [], new URLSearchParams(''), NOW);
    await view('status=failed', NOW);
    expect(listed()).toBe(2);
    prefetchFirstRuns(api, ['runs'], new URLSearchParams(''), NOW);
    await view('', NOW + 6_000);
    expect(listed()).toBe(4);
    prefetchFirstRuns(api, ['runs'], new URLSearchParams('range=24h'), NOW);
    prefetchFirstRuns(api, ['errors'], new URLSearchParams(''), NOW);
    prefetchFirstRuns(api, ['runs', 'run_1'], new URLSearchParams(''), NOW);
    expect(listed()).toBe(4);
    expect(RUNS_PAGE_SIZE).toBe(100);
  });
});
