import { randomBytes } from 'node:crypto';
import type { HivewatchEvent } from '../../base/events.js';
import type { LiveEvent } from '../api.js';

/**
 * The live stream: committed events get a gap-free id in commit order, are kept in a ring of the
 * last `capacity` events, and are delivered to subscribers in batches, at most one round per
 * frame (`frameMs`; 0: per turn of the event loop) however many transactions committed in it,
 * and with `maxFrameMs` further apart while rounds are costly (many subscribers: see frameGapMs).
 * Subscribers at the same position get the same frozen batch array, so a shell can encode it
 * once for all of them (server/sse.ts). A subscriber that cannot take more (`pause`) keeps only
 * its position: on `resume` it gets what it missed from the ring in chunks of at most
 * `maxBatch`, or a reset once its position has left the ring. The
 * service gives each event its journal commit position as id (`publish(events, firstId)`) and
 * names the instance after the database, so ids mean the same in every process and across
 * restarts (docs/decisions/0020-one-host-model-and-cross-process-commands.md). A subscriber resumes after any id still in the ring, or one the
 * `backfill` can still read within `capacity` of the head, without a gap or a duplicate; an id
 * older than that, newer than the head, or of another instance gets a reset instead: refetch,
 * then continue live.
 */

export const DEFAULT_LIVE_CAPACITY = 50_000;
/**
 * One delivery round per frame: the window paints at most this often anyway, and with many
 * subscribers each round costs a write per subscriber, so rounds per second, not commits per
 * second, set the cost of watching (docs/architecture.md, live stream).
 */
export const DEFAULT_LIVE_FRAME_MS = 50;
/**
 * The longest gap pacing may stretch a frame to: a fact still reaches every window well within
 * a second of its commit, however many windows watch.
 */
export const DEFAULT_LIVE_MAX_FRAME_MS = 250;
/**
 * The share of the process's time delivery rounds may take. A round's cost is one socket write
 * per subscriber (the batch is encoded once), paid in the kernel; with a thousand subscribers
 * that is tens of milliseconds, so rounds are spaced to keep that cost at this share of the
 * time, and the commits of the gap ride in one write per subscriber.
 */
const DELIVERY_SHARE = 0.1;

export interface LiveSubscribeOptions {
  /** Resume after this id; undefined or 0: from the head (only new events). */
  afterId?: number | undefined;
  /** The instance the id came from; another instance's id is a reset. */
  instance?: string | undefined;
  onBatch: (batch: LiveEvent[]) => void;
  /**
   * Called (from `deliver`) when the subscriber fell behind the ring during a storm, with the id
   * it continues after (the head).
   */
  onReset?: ((startId: number) => void) | undefined;
}

export interface LiveSubscription {
  /** The id the subscription continues after (afterId, or the head on a fresh start or a reset). */
  readonly startId: number;
  /** True when afterId could not be resumed: the caller should signal a reset. */
  readonly reset: boolean;
  unsubscribe(): void;
  /** Holds deliveries (the consumer's buffer is full); the hub keeps only the position. */
  pause(): void;
  /** Delivers what was held since `pause`, from the ring (or a reset if it has left the ring). */
  resume(): void;
}

export interface LiveHubOptions {
  /** The id of the last event before this hub's first (the journal head when the service starts). */
  startId?: number;
  /** Reads the events with ids in (afterId, upToId] from the journal, for a resume older than the ring. */
  backfill?: (afterId: number, upToId: number) => Promise<LiveEvent[]>;
  /** The shortest time between two delivery rounds (default 0: each turn of the event loop). */
  frameMs?: number;
  /**
   * The longest time pacing may put between two rounds when rounds are costly (default:
   * `frameMs`, no pacing). Rounds start at most every `frameMs`, and at most every
   * round cost / DELIVERY_SHARE, capped at this.
   */
  maxFrameMs?: number;
  /** The clock rounds are timed by (default `performance.now`); tests pass their own. */
  now?: () => number;
  /** The most events in one batch (default DEFAULT_MAX_BATCH): a subscriber further behind gets several. */
  maxBatch?: number;
}

const DEFAULT_MAX_BATCH = 2_000;

interface Subscriber {
  lastId: number;
  /** Backfilled events not delivered yet (they end at the ring's floor). */
  backlog: LiveEvent[];
  /** Its backlog is being read from the journal: nothing is delivered until it is in. */
  backfilling: boolean;
  /** Its consumer asked to hold deliveries until it resumes. */
  paused: boolean;
  onBatch: (batch: LiveEvent[]) => void;
  onReset: ((startId: number) => void) | undefined;
}

export class LiveHub {
  readonly instance: string;
  private readonly ring: (LiveEvent | undefined)[];
  private headId: number;
  /** The first id the ring can hold: ids below it were published before this hub existed. */
  private floorId: number;
  private readonly backfill: ((afterId: number, upToId: number) => Promise<LiveEvent[]>) | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private scheduled: { cancel(): void } | null = null;
  private lastRound = Number.NEGATIVE_INFINITY;
  private readonly frameMs: number;
  private readonly maxFrameMs: number;
  /** The recent cost of a round (smoothed), writes included: what paces the next one. */
  private roundCostMs = 0;
  private readonly now: () => number;
  private readonly maxBatch: number;
  private closed = false;

  constructor(
    readonly capacity: number = DEFAULT_LIVE_CAPACITY,
    instance?: string,
    options: LiveHubOptions = {},
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`live capacity must be a whole number of at least 1, got ${capacity}`);
    this.instance = instance ?? randomBytes(6).toString('hex');
    this.ring = new Array<LiveEvent | undefined>(capacity);
    this.headId = options.startId ?? 0;
    this.floorId = this.headId + 1;
    this.backfill = options.backfill;
    this.frameMs = options.frameMs ?? 0;
    this.maxFrameMs = Math.max(this.frameMs, options.maxFrameMs ?? this.frameMs);
    this.now = options.now ?? (() => performance.now());
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new RangeError(`live maxBatch must be a whole number of at least 1, got ${this.maxBatch}`);
  }

  /** The id of the newest event (0 before any). */
  get head(): number {
    return this.headId;
  }

  /** The time the next round keeps after the last one began: `frameMs`, stretched while rounds are costly. */
  get frameGapMs(): number {
    return Math.min(this.maxFrameMs, Math.max(this.frameMs, this.roundCostMs / DELIVERY_SHARE));
  }

  /** The oldest id still in the ring (head + 1 when empty). */
  get oldest(): number {
    return Math.max(this.floorId, this.headId - this.capacity + 1);
  }

  /**
   * Appends events with ids firstId, firstId + 1, ... (default: after the head). An id that
   * skips ahead starts the ring afresh from it: what lies before is not resumable from memory.
   */
  publish(events: readonly HivewatchEvent[], firstId?: number): void {
    if (this.closed || events.length === 0) return;
    if (firstId !== undefined && firstId !== this.headId + 1) {
      if (firstId <= this.headId) throw new RangeError(`live id ${firstId} was published already (head ${this.headId})`);
      // Everyone gets what precedes the jump first; then being at the old head is being at the new one.
      this.deliver();
      const before = this.headId;
      this.headId = firstId - 1;
      this.floorId = firstId;
      for (const subscriber of this.subscribers) if (subscriber.lastId === before) subscriber.lastId = this.headId;
    }
    for (const event of events) {
      const id = ++this.headId;
      this.ring[id % this.capacity] = { id, event };
    }
    this.schedule();
  }

  /** Events with ids in (afterId, upToId], assuming afterId + 1 ≥ oldest and upToId ≤ head. */
  private range(afterId: number, upToId: number): LiveEvent[] {
    const out: LiveEvent[] = [];
    for (let id = afterId + 1; id <= upToId; id++) out.push(this.ring[id % this.capacity] as LiveEvent);
    return out;
  }

  private resumable(afterId: number): boolean {
    return afterId <= this.headId && afterId >= this.oldest - 1;
  }

  subscribe(options: LiveSubscribeOptions): LiveSubscription {
    const wanted = options.afterId ?? 0;
    const foreign = options.instance !== undefined && options.instance !== this.instance;
    const backfilling = wanted !== 0 && !foreign && !this.resumable(wanted) && this.canBackfill(wanted);
    const reset = wanted !== 0 && (foreign || (!this.resumable(wanted) && !backfilling));
    const startId = wanted === 0 || reset ? this.headId : wanted;
    const subscriber: Subscriber = { lastId: startId, backlog: [], backfilling, paused: false, onBatch: options.onBatch, onReset: options.onReset };
    if (!this.closed) this.subscribers.add(subscriber);
    if (backfilling) void this.fillBacklog(subscriber, wanted);
    else if (startId < this.headId) this.schedule();
    return {
      startId,
      reset,
      unsubscribe: () => {
        this.subscribers.delete(subscriber);
      },
      pause: () => {
        subscriber.paused = true;
      },
      resume: () => {
        if (!subscriber.paused) return;
        subscriber.paused = false;
        this.schedule();
      },
    };
  }

  /** Whether an id older than the ring can be resumed from the journal (still within `capacity` of the head). */
  private canBackfill(afterId: number): boolean {
    return this.backfill !== undefined && afterId >= 0 && afterId <= this.oldest - 1 && this.headId - afterId <= this.capacity;
  }

  /**
   * Reads the events between the subscriber's id and the ring from the journal; until they are
   * in, nothing is delivered to it. A read that fails or has a gap resets the subscriber instead.
   */
  private async fillBacklog(subscriber: Subscriber, afterId: number): Promise<void> {
    const upTo = this.oldest - 1;
    let events: LiveEvent[] | null = null;
    try {
      events = await (this.backfill as (afterId: number, upToId: number) => Promise<LiveEvent[]>)(afterId, upTo);
    } catch {
      events = null;
    }
    subscriber.backfilling = false;
    const gapFree = events !== null && events.length === upTo - afterId && events.every((e, i) => e.id === afterId + 1 + i);
    if (gapFree) {
      subscriber.backlog = events as LiveEvent[];
      subscriber.lastId = upTo;
    } else {
      subscriber.lastId = this.headId;
      this.signalReset(subscriber);
    }
    this.schedule();
  }

  private signalReset(subscriber: Subscriber): void {
    try {
      subscriber.onReset?.(this.headId);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  private schedule(): void {
    if (this.scheduled !== null || this.closed) return;
    const round = (): void => {
      this.scheduled = null;
      this.deliver();
    };
    const wait = this.lastRound + this.frameGapMs - this.now();
    if (wait > 0) {
      const timer = setTimeout(round, wait);
      this.scheduled = { cancel: () => clearTimeout(timer) };
    } else {
      const immediate = setImmediate(round);
      this.scheduled = { cancel: () => clearImmediate(immediate) };
    }
  }

  /**
   * Sends every subscriber that is not paused what it has not seen yet, in batches of at most
   * `maxBatch`. Subscribers at the same position share one frozen batch array per chunk.
   */
  deliver(): void {
    const began = this.now();
    this.lastRound = began;
    const shared = new Map<number, LiveEvent[]>();
    for (const subscriber of [...this.subscribers]) {
      while (this.subscribers.has(subscriber) && !subscriber.backfilling && !subscriber.paused) {
        if (subscriber.lastId >= this.headId && subscriber.backlog.length === 0) break;
        if (!this.resumable(subscriber.lastId)) {
          subscriber.lastId = this.headId;
          subscriber.backlog = [];
          this.signalReset(subscriber);
          break;
        }
        this.send(subscriber, this.nextBatch(subscriber, shared));
      }
    }
    // A socket write made in the round is flushed on the next tick (Node corks it until then): a
    // tick queued now runs after those flushes, so the cost measured includes the writes.
    if (this.maxFrameMs > this.frameMs) process.nextTick(() => this.recordRoundCost(this.now() - began));
  }

  private recordRoundCost(ms: number): void {
    this.roundCostMs = (this.roundCostMs + ms) / 2;
  }

  /** The subscriber's next chunk (its backfilled backlog first), advancing its position past it. */
  private nextBatch(subscriber: Subscriber, shared: Map<number, LiveEvent[]>): LiveEvent[] {
    if (subscriber.backlog.length > 0) {
      const batch = subscriber.backlog.slice(0, this.maxBatch);
      subscriber.backlog = subscriber.backlog.slice(batch.length);
      return batch;
    }
    const from = subscriber.lastId;
    let batch = shared.get(from);
    if (batch === undefined) {
      batch = Object.freeze(this.range(from, Math.min(this.headId, from + this.maxBatch))) as LiveEvent[];
      shared.set(from, batch);
    }
    subscriber.lastId = from + batch.length;
    return batch;
  }

  private send(subscriber: Subscriber, batch: LiveEvent[]): void {
    try {
      subscriber.onBatch(batch);
    } catch (error) {
      // One subscriber's failure must not starve the others.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  close(): void {
    this.closed = true;
    this.scheduled?.cancel();
    this.scheduled = null;
    this.subscribers.clear();
  }
}

/** SSE ids carry the instance: `<instance>.<id>`. */
export function formatLiveId(instance: string, id: number): string {
  return `${instance}.${id}`;
}

/**
 * Reads a Last-Event-ID: `<instance>.<id>` or a bare `<id>` (taken as this instance's). Null for
 * anything else (treated as unknown: a reset).
 */
export function parseLiveId(text: string | null | undefined): { instance: string | undefined; id: number } | null {
  if (text === null || text === undefined) return null;
  const match = /^(?:([0-9a-z]{1,64})\.)?(\d{1,15})$/.exec(text.trim());
  if (!match) return null;
  return { instance: match[1], id: Number(match[2]) };
}
