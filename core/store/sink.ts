import { isTerminalEvent, type EventSink, type HivewatchEvent } from '../base/events.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { writeAround, type EventAppender, type Refusal } from './sink-refusals.js';
import { RunTakenError } from './store-error.js';
import { isRefusedWrite } from './write-errors.js';

export type { EventAppender, Refusal } from './sink-refusals.js';

/**
 * Waits between a failed journal write and the next try (issue #13: a database server that goes
 * away mid-run). The sum bounds how long a run waits before it stops as SYSTEM_EVENT_WRITE_FAILED.
 */
export const DEFAULT_WRITE_RETRY_DELAYS_MS: readonly number[] = [100, 200, 400, 800, 1_600, 3_200];

/** How often a sink whose flush gave up tries again by itself (see `backgroundRetryMs`). */
export const DEFAULT_BACKGROUND_RETRY_MS = 1_000;

export interface DurableSinkOptions {
  /** Events per transaction when a storm fills the buffer before the next tick (default 1000). */
  maxBatch?: number;
  /** Waits before each retry of a failed flush (default DEFAULT_WRITE_RETRY_DELAYS_MS; [] retries never). */
  retryDelaysMs?: readonly number[];
  /** How a retry waits (tests inject one that does not). The default timer keeps the process alive. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Once a flush gave up with events still buffered, write them without waiting for the next
   * flush: one try every this many ms until they are written or the sink is closed (a host whose
   * database comes back journals its runs' last events at once). Default: off.
   */
  backgroundRetryMs?: number | null;
  /** Told of each run whose events the database refused (its journal was ended: sink-refusals.ts). */
  onRefused?: (refusal: Refusal) => void;
  /**
   * Runs another host interrupted while this one was not heard from (RunTakenError): their
   * events are dropped from now on, the rest of the batch is written, and this is told which.
   */
  onRunTaken?: (runIds: readonly string[]) => void;
}

export interface DurableSink extends EventSink {
  /** Events appended but not yet committed. */
  readonly pending: number;
  /**
   * The sink of one run (it takes the run's id from its first event): its flush also rejects,
   * with the run's SYSTEM_EVENT_REJECTED error, once the database refused the run's events, so
   * the engine stops the run; after the run's own terminal event it resolves (its end is
   * journaled: the refusal's).
   */
  forRun(): EventSink;
  /** Flushes what is buffered and stops scheduling writes. */
  close(): Promise<void>;
  /**
   * Drops what is buffered for these runs and every event appended for them from now on: runs
   * this host no longer owns (another host interrupted them), whose journal it must not continue.
   */
  drop(runIds: readonly string[]): void;
}

/** A timer the sink can end early (on close), and that keeps the process alive while it runs. */
class Timers {
  private readonly wakers = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

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
 * A failed write rolls back completely. When the database refused the batch for what it holds
 * (`isRefusedWrite`), the batch is written around the refused events (sink-refusals.ts). Otherwise
 * (the database away, busy, full) its events go back in front of the buffer; a flush retries after
 * each of `retryDelaysMs` (the waits keep the process alive: a host must not exit while its
 * journal waits for the database), then rejects with SYSTEM_EVENT_WRITE_FAILED and keeps the
 * events for a later flush, or for the background retries. Events must not be mutated after `append`.
 */
export function createDurableSink(store: EventAppender, options: DurableSinkOptions = {}): DurableSink {
  const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 1_000));
  const retryDelays = options.retryDelaysMs ?? DEFAULT_WRITE_RETRY_DELAYS_MS;
  const timers = new Timers();
  const sleep = options.sleep ?? ((ms: number) => timers.sleep(ms));
  const backgroundMs = options.backgroundRetryMs ?? null;
  // Appended events not yet written, in chunks of at most maxBatch: taking a batch is O(1) however
  // large a storm's backlog (slicing one array per batch was quadratic).
  const chunks: HivewatchEvent[][] = [];
  let buffered = 0;
  /** Events ever appended, and each buffered event's place among them (what a flush waits for). */
  let appended = 0;
  const appendOrder = new WeakMap<HivewatchEvent, number>();
  let inFlight: Promise<void> | null = null;
  /** Events of the write in flight (out of the buffer, not committed yet). */
  let writing = 0;
  let scheduled: NodeJS.Immediate | null = null;
  let closed = false;
  let failed = false;
  let lastError: unknown = null;
  let flushing: Promise<void> = Promise.resolve();
  let retryingInBackground = false;
  /** Runs whose journal was ended because the database refused their events, with that error. */
  const refused = new Map<string, Refusal>();
  /** The events that end a refused run (kept, unlike everything else of the run appended later). */
  const endings = new WeakSet<HivewatchEvent>();
  /** Runs another host took (RunTakenError): nothing more of theirs is written. */
  const dropped = new Set<string>();
  const kept = (event: HivewatchEvent): boolean => !dropped.has(event.runId) && (!refused.has(event.runId) || endings.has(event));

  const drop = (runIds: readonly string[]): void => {
    for (const runId of runIds) dropped.add(runId);
    const left = chunks.flat().filter(kept);
    chunks.length = 0;
    for (let i = 0; i < left.length; i += maxBatch) chunks.push(left.slice(i, i + maxBatch));
    buffered = left.length;
  };

  const putBack = (events: readonly HivewatchEvent[]): void => {
    if (events.length === 0) return;
    chunks.unshift([...events]);
    buffered += events.length;
  };

  const takeBatch = (): HivewatchEvent[] | null => {
    for (let chunk = chunks.shift(); chunk !== undefined; chunk = chunks.shift()) {
      buffered -= chunk.length;
      const batch = refused.size === 0 && dropped.size === 0 ? chunk : chunk.filter(kept);
      if (batch.length > 0) return batch;
    }
    return null;
  };

  /** Writes one batch; on a failure that is no refusal, puts back what is not written and throws. */
  const writeBatch = async (batch: HivewatchEvent[]): Promise<void> => {
    try {
      await store.appendEvents(batch);
      return;
    } catch (error) {
      if (error instanceof RunTakenError) {
        // Not a failure of the journal: the rest of the batch goes out with the next write.
        drop(error.runIds);
        putBack(batch.filter(kept));
        options.onRunTaken?.(error.runIds);
        return;
      }
      if (!isRefusedWrite(error)) {
        putBack(batch);
        throw error;
      }
    }
    const around = await writeAround(store, batch);
    for (const refusal of around.refusals) {
      refused.set(refusal.runId, refusal);
      for (const event of refusal.ending) endings.add(event);
      options.onRefused?.(refusal);
    }
    if (around.away !== null) {
      putBack(around.unwritten.filter(kept));
      throw around.away.error;
    }
  };

  /** Starts writing what is buffered unless a write is in flight; resolves when that write settles. */
  const startWrite = (): Promise<void> => {
    if (inFlight !== null) return inFlight;
    const batch = takeBatch();
    if (batch === null) return Promise.resolve();
    writing = batch.length;
    const settled = writeBatch(batch).then(
      () => {
        failed = false;
        lastError = null;
      },
      (error: unknown) => {
        failed = true;
        lastError = error;
      },
    );
    inFlight = settled.finally(() => {
      inFlight = null;
      writing = 0;
      // What was appended while this batch was written goes next (not after a failure: flush
      // retries): a full batch at once, the rest on the next tick.
      if (!failed && buffered >= maxBatch) void startWrite();
      else if (!failed && buffered > 0) schedule();
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

  /** Writes until the buffer is empty; throws the last error once `delays` are spent. */
  const drain = async (delays: readonly number[], target: number): Promise<void> => {
    let retries = 0;
    for (;;) {
      // A failed write puts its events back in front of the buffer, in append order: once the
      // buffer's first event was appended at or after `target`, everything before it is
      // committed (or dropped with its run), and later events are not this flush's to wait for.
      while (inFlight !== null) await inFlight;
      const first = chunks[0]?.[0];
      if (first === undefined || (appendOrder.get(first) ?? target) >= target) return;
      await startWrite();
      if (!failed) continue;
      const delay = delays[retries];
      if (delay === undefined) throw lastError;
      retries += 1;
      await sleep(delay);
    }
  };

  /**
   * Flushes run one after another: each sees what the previous one left. A flush waits for the
   * events appended before it was called, not for those other runs append while it waits
   * (issue #25 part 7: with many runs, "until the buffer is empty" could mean waiting for
   * everyone's later events); events commit in append order, so the earlier flushes cost nothing more.
   */
  const queued = (delays: readonly number[]): Promise<void> => {
    if (scheduled !== null) {
      clearImmediate(scheduled);
      scheduled = null;
    }
    const target = appended;
    const next = flushing.then(() => drain(delays, target)).catch((error: unknown) => {
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

  /** After a flush gave up: one try every `backgroundMs` until the buffer is written (or the sink closed). */
  const retryInBackground = (): void => {
    if (backgroundMs === null || retryingInBackground || closed) return;
    retryingInBackground = true;
    void (async () => {
      while (!closed && buffered + writing > 0) {
        await sleep(backgroundMs);
        if (!closed) await queued([]).catch(() => undefined);
      }
    })().finally(() => {
      retryingInBackground = false;
    });
  };

  const flush = (): Promise<void> => {
    const next = queued(retryDelays);
    next.catch(() => retryInBackground());
    return next;
  };

  const append = (event: HivewatchEvent): void => {
    // A refused run's journal has ended, a taken one is another host's: what is appended is not journaled.
    if (refused.has(event.runId) || dropped.has(event.runId)) return;
    let last = chunks[chunks.length - 1];
    if (last === undefined || last.length >= maxBatch) chunks.push((last = []));
    last.push(event);
    buffered += 1;
    appendOrder.set(event, appended++);
    if (buffered >= maxBatch && !failed && inFlight === null) void startWrite();
    schedule();
  };

  return {
    get pending() {
      return buffered + writing;
    },
    append,
    flush,
    forRun(): EventSink {
      let runId: string | null = null;
      let ended = false;
      return {
        append(event: HivewatchEvent): void {
          runId ??= event.runId;
          if (isTerminalEvent(event)) ended = true;
          append(event);
        },
        async flush(): Promise<void> {
          await flush();
          const refusal = runId === null ? undefined : refused.get(runId);
          // Mid-run, the engine must stop; at its end, the run's end is journaled (unless that was refused too).
          if (refusal !== undefined && (!ended || !refusal.journaled)) throw refusal.error;
        },
      };
    },
    drop,
    async close(): Promise<void> {
      closed = true;
      timers.wakeAll();
      await flush();
    },
  };
}
