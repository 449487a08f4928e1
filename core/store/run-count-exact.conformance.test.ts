import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder, type ErrorSpec } from './testing/journal-builder.js';

/**
 * The issue page's "Retry these N runs" count on both engines: an issue's runs past the count's
 * cap (10,000 runs of any status) with a few failed ones among them. The breakdowns stop at the
 * cap and say so; the total under every filter (the issue and the retryable statuses) is what a
 * bulk retry by that filter takes, exactly, and says it is exact.
 */

const T0 = Date.UTC(2026, 0, 1);
const TIMEOUT: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 30000ms' };
const RECOVERED = 10_100;
const FAILED = 237;
const RETRYABLE = ['failed', 'cancelled', 'interrupted'] as const;

/** Runs that met the timeout and went on, then runs that failed of it (ids sorted after the others: read last by id). */
function history(): HivewatchEvent[] {
  const events: HivewatchEvent[] = [];
  for (let i = 0; i < RECOVERED; i++) {
    events.push(
      ...new JournalBuilder(`a-recovered-${i}`, { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + i * 1_000 })
        .start()
        .runStep([{ attempts: [TIMEOUT, 'ok'] }])
        .complete().events,
    );
  }
  for (let i = 0; i < FAILED; i++) {
    events.push(
      ...new JournalBuilder(`z-failed-${i}`, { flow: 'flows/alpha.prose', flowName: 'alpha', start: T0 + (RECOVERED + i) * 1_000 })
        .start()
        .runStep([{ attempts: [TIMEOUT] }])
        .fail().events,
    );
  }
  return events;
}

const { engines, start, stop } = testEngines('runcountexact', { readPool: true });
beforeAll(start, 120_000);
afterAll(stop);

describe.each(engines)('an issue’s retryable count past the cap on $name', (engine) => {
  it('is exact for the runs a retry takes, while the breakdowns say they are lower bounds', async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options, recover: false });
    try {
      await store.appendEvents(history());
      const groups = await store.errorGroups();
      expect(groups.map((g) => g.code)).toEqual(['RUNTIME_TIMEOUT']);
      const issue = groups[0]!.fingerprint;
      const retryable = await store.countRuns({ issue, status: [...RETRYABLE] });
      expect(retryable).toMatchObject({ total: FAILED, atLeast: true, totalExact: true });
      // The breakdowns stopped at the cap: at most its 10,001 runs of any status.
      const counted = Object.values(retryable.byStatus).reduce((sum, n) => sum + (n ?? 0), 0);
      expect(counted).toBeLessThanOrEqual(10_001);
      // Past the cap under every filter, the total is a lower bound again and says so.
      const completed = await store.countRuns({ issue, status: ['completed'] });
      expect(completed).toMatchObject({ total: 10_001, atLeast: true });
      expect(completed.totalExact).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 300_000);
});
