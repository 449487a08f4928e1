import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from '../store/contract.js';
import { openStore } from '../store/open.js';
import { testEngines } from '../store/testing/engines.js';
import { JournalBuilder } from '../store/testing/journal-builder.js';
import { usageLimitWait } from '../store/testing/usage-limit-journal.js';
import { readApi } from './read-api.js';

/**
 * The API's `waiting-limit` filter over the store on every engine: the list
 * and its counts, `waitingUntil` on every run summary, and a status the API does not know
 * refused with the same 400 as before.
 */

const { engines, start, stop } = testEngines('api_waiting_limit');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const RESET = Date.UTC(2026, 10, 26, 14, 5, 0);

describe.each(engines)('the waiting-limit filter of the API on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('lists and counts the runs waiting for a usage-limit reset, each summary with waitingUntil', async () => {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    await store.appendEvents([
      ...usageLimitWait('run-limited', { start: T0, resetAt: RESET }).events,
      ...usageLimitWait('run-backoff', { start: T0, resetAt: RESET, usageLimit: false }).events,
      ...new JournalBuilder('run-done', { flow: 'flows/a.prose', flowName: 'a', start: T0 })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    ]);
    const api = readApi(store, () => Promise.resolve(null));
    const waiting = await api.listRuns({ status: ['waiting-limit'] });
    expect(waiting.items.map((r) => [r.id, r.status, r.waitingUntil, r.retrying?.nextAttemptAt])).toEqual([['run-limited', 'running', RESET, RESET]]);
    const every = await api.listRuns({});
    expect(Object.fromEntries(every.items.map((r) => [r.id, r.waitingUntil]))).toEqual({ 'run-limited': RESET, 'run-backoff': null, 'run-done': null });
    const counts = await api.countRuns({});
    expect(counts.byStatus).toEqual({ running: 2, completed: 1, 'waiting-limit': 1 });
    expect((await api.countRuns({ status: ['waiting-limit'] })).total).toBe(1);
    await expect(api.listRuns({ status: ['waiting' as 'running'] })).rejects.toMatchObject({ status: 400, apiCode: 'invalid_input' });
  });
});
