import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IssueTransitions } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { IssueBook } from './book.js';

/**
 * A batch's issue pass reads the issues its errors touched, not every issue:
 * the store answers the groups and log rows of a few fingerprints exactly as the whole reads do,
 * filtered, on every engine; and `reconcile(only)` asks for those alone. Real stores, an
 * injected clock.
 */

const { engines, start, stop } = testEngines('issues-touched');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 26, 9);
const CODES = ['RUNTIME_RATE_LIMIT', 'RUNTIME_TIMEOUT', 'RUNTIME_CRASHED'] as const;

/** A run of flow `n` failing on CODES[n]. */
const failedRun = (id: string, n: number, at: number): JournalBuilder =>
  new JournalBuilder(id, { start: at, flow: `flows/f${n}.prose` })
    .start()
    .runStep([{ attempts: [{ code: CODES[n]!, message: `failure ${n}`, origin: 'runtime:fake' }] }])
    .fail();

describe.each(engines)('issues a batch touched, on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  async function storeWithThreeIssues(): Promise<{ store: HivewatchStore; book: IssueBook; fingerprints: string[] }> {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    for (let n = 0; n < CODES.length; n++) await store.appendEvents(failedRun(`run-${n}`, n, T0 + n * 60_000).events);
    const book = new IssueBook({ store, hub: new IssueTransitions(), host: 'h1', now: () => T0 + HOUR });
    await book.reconcile();
    const fingerprints = (await store.errorGroups({ sort: 'last_seen' })).map((g) => g.fingerprint);
    expect(fingerprints).toHaveLength(3);
    return { store, book, fingerprints };
  }

  it('the groups and log rows of some fingerprints are those of the whole reads, filtered', async () => {
    const { store, fingerprints } = await storeWithThreeIssues();
    const some = [fingerprints[2]!, fingerprints[0]!, fingerprints[2]!];
    const wanted = new Set(some);
    const all = await store.errorGroups({ sort: 'last_seen' });
    expect(await store.issues.groups(some)).toEqual(all.filter((g) => wanted.has(g.fingerprint)));
    expect(await store.issues.log(some)).toEqual((await store.issues.log()).filter((r) => wanted.has(r.fingerprint)));
    expect(await store.issues.groups(['0'.repeat(16)])).toEqual([]);
  });

  it('reconcile of the touched issues reads neither every group nor the whole log, and journals their transitions', async () => {
    const { store, book, fingerprints } = await storeWithThreeIssues();
    const target = fingerprints[1]!;
    const fingerprintsCode = new Map((await store.errorGroups()).map((g) => [g.fingerprint, g.code]));
    await book.setStatus({ id: target, action: 'resolve', by: 'cli' });
    // It comes back after the resolve: the pass over it alone journals the regression.
    const n = CODES.findIndex((code) => code === fingerprintsCode.get(target));
    await store.appendEvents(failedRun('run-again', n, T0 + 2 * HOUR).events);
    const reads: string[] = [];
    const issues = store.issues;
    const watched = new Proxy(store, {
      get(target_, property, receiver) {
        if (property === 'errorGroups') reads.push('errorGroups');
        if (property !== 'issues') return Reflect.get(target_, property, receiver) as unknown;
        return new Proxy(issues, {
          get(inner, key, innerReceiver) {
            if (key === 'log')
              return (fingerprint?: string | readonly string[]) => (reads.push(fingerprint === undefined ? 'whole log' : 'some log'), issues.log(fingerprint));
            return Reflect.get(inner, key, innerReceiver) as unknown;
          },
        });
      },
    });
    const touchedBook = new IssueBook({ store: watched, hub: new IssueTransitions(), host: 'h1', now: () => T0 + 3 * HOUR });
    const journaled = await touchedBook.reconcile([target]);
    expect(journaled.map((r) => [r.fingerprint, r.kind])).toEqual([[target, 'regressed']]);
    expect(reads).not.toContain('errorGroups');
    expect(reads).not.toContain('whole log');
    expect(reads).toContain('some log');
  });
});
