import type { EventSink, HivewatchEvent } from '../engine/events.js';
import { HivewatchError } from '../errors/hivewatch-error.js';

/** What the sink needs of the store. */
export interface EventAppender {
  appendEvents(events: readonly HivewatchEvent[]): Promise<void>;
}

/**
 * Waits between a failed journal write and the next try (issue #13: a database server that goes
 * away mid-run). The sum bounds how long a run waits before it stops as SYSTEM_EVENT_WRITE_FAILED.
 */
export const DEFAULT_WRITE_RETRY_DELAYS_MS: readonly number[] = [100, 200, 400, 800, 1_600, 3_200];

export interface DurableSinkOptions {
  /** Events per transaction when a storm fills the buffer before the next tick (default 1000). */
  maxBatch?: number;
  /** Waits before each retry of a failed flush (default DEFAULT_WRITE_RETRY_DELAYS_MS; [] retries never). */
  retryDelaysMs?: readonly number[];
  /** How a retry waits (tests inject one that does not). */
  sleep?: (ms: number) => Promise<void>;
}

export interface DurableSink extends EventSink {
  /** Events appended but not yet committed. */
  readonly pending: number;
  /** Flushes what is buffered and stops scheduling writes. */
  close(): Promise<void>;
}

const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * The engine's EventSink over the store. `append` only buffers (the engine's hot path never
 * waits on the database) and schedules a write on the next turn of the event loop, so live
 * readers see events within a tick; a full buffer (`maxBatch`) is written at once, so a storm
 * becomes transactions of `maxBatch` events, never one per event. One write is in flight at a
 * time, so batches commit in the order they were appended. `flush()` resolves once every event
 * appended before it was called is durable (not those appended while it waits: with many runs
 * appending, "until the buffer is empty" could mean waiting for everyone's later events, issue
 * #25 part 7): the engine awaits it between steps, so a step's events are journaled before the
 * next step starts, and a started run is listed once `startRun` answers.
 *
 * A failed write rolls back completely and puts its events back in front of the buffer. A flush
 * that fails is retried after each of `retryDelaysMs` (a busy SQLite file, a PostgreSQL server
 * restarting); past the last it rejects with SYSTEM_EVENT_WRITE_FAILED and keeps the events, so a
 * later flush (once the database is back) still writes them. Events must not be mutated after `append`.
 */
export function createDurableSink(store: EventAppender, options: DurableSinkOptions = {}): DurableSink {
  const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 1_000));
  const retryDelays = options.retryDelaysMs ?? DEFAULT_WRITE_RETRY_DELAYS_MS;
  const sleep = options.sleep ?? realSleep;
  // Appended events not yet written, in chunks of at most maxBatch: taking a batch is O(1) however
  // large a storm's backlog (slicing one array per batch was quadratic).
  const chunks: HivewatchEvent[][] = [];
  let buffered = 0;
  /** Events ever appended, and ever committed: a flush waits until `committed` reaches what was appended before it. */
  let appended = 0;
  let committed = 0;
  let inFlight: Promise<void> | null = null;
  /** Events of the write in flight (out of the buffer, not committed yet). */
  let writing = 0;
  let scheduled: NodeJS.Immediate | null = null;
  let closed = false;
  let lastError: unknown = null;
  let flushing: Promise<void> = Promise.resolve();

  /** Starts writing what is buffered unless a write is in flight; resolves when that write settles. */
  const startWrite = (): Promise<void> => {
    if (inFlight !== null) return inFlight;
    const batch = chunks.shift();
    if (batch === undefined) return Promise.resolve();
    buffered -= batch.length;
    writing = batch.length;
    let write: Promise<void>;
    try {
      write = store.appendEvents(batch);
    } catch (error) {
      write = Promise.reject(error as Error);
    }
    const size = batch.length;
    const settled = write.then(
      () => {
        committed += size;
        lastError = null;
      },
      (error: unknown) => {
        chunks.unshift(batch);
        buffered += batch.length;
        lastError = error;
      },
    );
    inFlight = settled.finally(() => {
      inFlight = null;
      writing = 0;
      // What was appended while this batch was written goes next (not after a failure: flush
      // retries): a full batch at once, the rest on the next tick.
      if (lastError === null && buffered >= maxBatch) void startWrite();
      else if (lastError === null && buffered > 0) schedule();
    });
    return inFlight;
  };

  const schedule = (): void => {
    if (scheduled !== null || closed) return;
    scheduled = setImmediate(() => {
      scheduled = null;
      void startWrite();
    });
  };

  /** Writes until the first `target` events appended are committed; throws the last error once the retries are spent. */
  const drain = async (target: number): Promise<void> => {
    let retries = 0;
    for (;;) {
      // A failed write puts its events back in the buffer: committed counts successful writes only.
      while (inFlight !== null) await inFlight;
      if (committed >= target || buffered === 0) return;
      await startWrite();
      if (lastError === null) continue;
      const delay = retryDelays[retries];
      if (delay === undefined) throw lastError;
      retries += 1;
      await sleep(delay);
    }
  };

  const flush = (): Promise<void> => {
    if (scheduled !== null) {
      clearImmediate(scheduled);
      scheduled = null;
    }
    // Flushes run one after another: each sees what the previous one left. Events are committed
    // in the order they were appended, so waiting for the earlier flushes costs nothing more.
    const target = appended;
    const next = flushing.then(() => drain(target)).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new HivewatchError('SYSTEM_EVENT_WRITE_FAILED', {
        message: `could not journal ${buffered} event(s): ${message}`,
        origin: 'system',
        context: { pending: buffered },
        cause: error,
      });
    });
    flushing = next.catch(() => undefined);
    return next;
  };

  return {
    get pending() {
      return buffered + writing;
    },
    append(event: HivewatchEvent): void {
      let last = chunks[chunks.length - 1];
      if (last === undefined || last.length >= maxBatch) chunks.push((last = []));
      last.push(event);
      buffered += 1;
      appended += 1;
      if (buffered >= maxBatch && lastError === null && inFlight === null) void startWrite();
      schedule();
    },
    flush,
    async close(): Promise<void> {
      closed = true;
      await flush();
    },
  };
}
