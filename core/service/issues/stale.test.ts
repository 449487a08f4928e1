import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions, type IssueTransition } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { IssueBook } from './book.js';

/**
 * A system transition decided on a state that an operator's change replaced before the insert
 * landed (two hosts, or the watch and the window of one): host B reads the log (resolved), the
 * operator ignores the issue forever on host A, an occurrence arrives, and B journals the
 * regression of a resolve that no longer holds. The ignore must stand, on every host and after a
 * restart, and B's hook must not announce a regression. The interleaving is made exact by
 * running A's change inside B's read of the occurrences (real stores, an injected clock).
 */

const { engines, start, stop } = testEngines('issues_stale');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20, 12);
const failedRun = (id: string, at: number): JournalBuilder =>
  new JournalBuilder(id, { start: at, flow: 'flows/api.prose', flowName: 'api' })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' }] }])
    .fail();

/** The store with `issues.occurrencesAfter` running `meanwhile` once before it reads. */
function interleaved(store: HivewatchStore, meanwhile: () => Promise<void>): HivewatchStore {
  let pending: (() => Promise<void>) | null = meanwhile;
  const issues = {
    ...store.issues,
    occurrencesAfter: async (fingerprint: string, after: number) => {
      const run = pending;
      pending = null;
      if (run) await run();
      return store.issues.occurrencesAfter(fingerprint, after);
    },
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === 'issues') return issues;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(engines)('a stale system transition on $name', (engine) => {
  it('does not undo the operator change that landed between its read and its insert', async () => {
    const location = await engine.fresh();
    const a = await openStore({ path: location });
    const b = await openStore({ path: location });
    try {
      const clock = { now: T0 + HOUR };
      const seenA: IssueTransition[] = [];
      const seenB: IssueTransition[] = [];
      const hubA = new IssueTransitions();
      hubA.subscribe((t) => seenA.push(t));
      const hostA = new IssueBook({ store: a, hub: hubA, host: 'h1', now: () => clock.now });
      await a.appendEvents(failedRun('run-a', T0).events);
      await hostA.reconcile();
      const id = seenA[0]!.fingerprint;
      clock.now = T0 + 2 * HOUR;
      await hostA.setStatus({ id, action: 'resolve', by: 'cli' });

      clock.now = T0 + 3 * HOUR;
      const hubB = new IssueTransitions();
      hubB.subscribe((t) => seenB.push(t));
      const hostB = new IssueBook({
        store: interleaved(b, async () => {
          await hostA.setStatus({ id, action: 'ignore', by: 'window' });
          await a.appendEvents(failedRun('run-b', T0 + 3 * HOUR - 60_000).events);
        }),
        hub: hubB,
        host: 'h2',
        now: () => clock.now,
      });
      await hostB.reconcile();

      expect(seenB).toEqual([]);
      expect(seenA.map((t) => t.kind)).toEqual(['new', 'resolved', 'ignored']);
      expect(await hostA.get(id)).toMatchObject({ status: 'ignored', changedBy: 'window' });
      expect(await hostB.get(id)).toMatchObject({ status: 'ignored', changedBy: 'window' });
      const restarted = new IssueBook({ store: b, hub: new IssueTransitions(), host: 'h3', now: () => clock.now });
      expect(await restarted.get(id)).toMatchObject({ status: 'ignored' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
