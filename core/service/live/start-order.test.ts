import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import type { LiveEvent } from '../api.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService } from '../service.js';

/**
 * The start-up order: the live hub must exist before the journal tail follows the
 * journal, because the tail publishes from the moment it subscribes. The store here is a real
 * SQLite store whose subscription delivers, at the moment the tail subscribes, a batch that
 * committed after the tail read the journal head: the order a commit racing the service's start
 * has (on PostgreSQL, a NOTIFY arriving before the service finished starting).
 */

/** The real store, except that its head reads `inFlight` events back and `subscribe` delivers them at once. */
function racingStore(store: HivewatchStore, inFlight: Awaited<ReturnType<HivewatchStore['eventsAfterCommit']>>): HivewatchStore {
  const first = inFlight[0]?.commitSeq ?? 1;
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'journalHead') return () => Promise.resolve(first - 1);
      if (key === 'subscribe') {
        return (listener: Parameters<HivewatchStore['subscribe']>[0]) => {
          const off = target.subscribe(listener);
          listener(
            inFlight.map((c) => c.event),
            inFlight.map((c) => c.event.ts),
            inFlight.map((c) => c.commitSeq),
          );
          return off;
        };
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('service start-up order', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a batch the journal delivers while the service starts reaches live subscribers, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-start-order-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await openStore({ path: join(dir, 'hivewatch.db') });
    cleanups.push(() => store.close());

    // A finished run's events are the batch in flight.
    const earlier = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual' });
    const { runId } = await earlier.startRun({ flow: 'examples/01-happy-path.prose' });
    await earlier.whenFinished(runId);
    await earlier.close();
    const committed = await store.eventsAfterCommit(0, 10_000);
    expect(committed.length).toBeGreaterThan(3);
    const inFlight = committed.slice(-3);

    const service = await createHivewatchService({ store: racingStore(store, inFlight), examplesDir: EXAMPLES_DIR, clock: 'virtual' });
    cleanups.push(() => service.close());
    const afterId = (inFlight[0]?.commitSeq as number) - 1;
    const seen: LiveEvent[] = [];
    const reset = service.subscribeLive({ afterId, instance: service.instance, onBatch: (batch) => seen.push(...batch) }).reset;
    expect(reset).toBe(false);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(inFlight.length);
    expect(seen.map((e) => e.id)).toEqual(inFlight.map((c) => c.commitSeq));
    expect(seen.map((e) => e.event)).toEqual(inFlight.map((c) => c.event));
  });
});
