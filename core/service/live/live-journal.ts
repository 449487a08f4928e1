import { randomBytes } from 'node:crypto';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchServiceOptions } from '../service-types.js';
import { JournalTail, readCommitted } from './journal-tail.js';
import { DEFAULT_LIVE_CAPACITY, DEFAULT_LIVE_FRAME_MS, DEFAULT_LIVE_MAX_FRAME_MS, LiveHub } from './hub.js';

/**
 * The service's live view of the journal: the hub the shells' streams read from and the tail that
 * feeds it with every process's commits, in commit order.
 *
 * The hub is made before the tail starts: the tail publishes from the moment it follows the
 * journal (its subscription, a PostgreSQL NOTIFY), and a batch published into nothing would be
 * skipped past for good. Live ids are journal commit positions, so the instance is the
 * database's: ids mean the same in every process on it and after a restart
 * (docs/decisions/0020-one-host-model-and-cross-process-commands.md).
 */

export interface LiveJournal {
  hub: LiveHub;
  tail: JournalTail;
}

export interface LiveJournalHooks {
  /** Every committed batch as the hub gets it, this process's and others' (the alerts pass on it). */
  published(events: readonly HivewatchEvent[]): void;
  /** The tail's probe found another process's commit (after publishing it). */
  foreignCommit(): void;
}

/**
 * Ids are the journal's commit positions from `head` on, a resume older than the ring is read
 * back from the journal, and rounds are paced by their cost.
 */
function serviceLiveHub(options: HivewatchServiceOptions, instance: string, head: number): LiveHub {
  const frameMs = options.liveFrameMs ?? DEFAULT_LIVE_FRAME_MS;
  return new LiveHub(options.liveCapacity ?? DEFAULT_LIVE_CAPACITY, instance, {
    startId: head,
    backfill: (afterId, upToId) => readCommitted(options.store, afterId, upToId),
    frameMs,
    maxFrameMs: Math.max(frameMs, DEFAULT_LIVE_MAX_FRAME_MS),
  });
}

export async function followLiveJournal(options: HivewatchServiceOptions, hooks: LiveJournalHooks): Promise<LiveJournal> {
  const { store } = options;
  const instance = await store.secret('live_instance', () => randomBytes(6).toString('hex'));
  const start = await JournalTail.startingPoint(store);
  const hub = serviceLiveHub(options, instance, start.head);
  const tail = JournalTail.follow(
    {
      store,
      publish: (events, firstId) => {
        hub.publish(events, firstId);
        hooks.published(events);
      },
      onForeignCommit: () => hooks.foreignCommit(),
      ...(options.tailIntervalMs !== undefined ? { intervalMs: options.tailIntervalMs } : {}),
      ...(options.tailScheduler !== undefined ? { scheduler: options.tailScheduler } : {}),
    },
    start,
  );
  return { hub, tail };
}
