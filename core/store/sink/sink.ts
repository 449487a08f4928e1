import { isTerminalEvent, type EventSink, type HivewatchEvent } from '../../base/events.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { writeAround, type EventAppender, type Refusal } from './sink-refusals.js';
import { RunTakenError } from '../store-error.js';
import { isRefusedWrite } from './write-errors.js';
import { SinkBuffer } from './sink-buffer.js';
import { Timers } from './timers.js';

export type { EventAppender, Refusal } from './sink-refusals.js';

/**
 * Waits between a failed journal write and the next try (a database server that goes
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

/**
 * The engine's EventSink over the store. `append` only buffers (the engine's hot path never
 * waits on the database) and schedules a write on the next turn of the event loop, so live
 * readers see events within a tick; a full buffer (`maxBatch`) is written at once, so a storm
 * becomes transactions of `maxBatch` events, never one per event. One write is in flight at a
 * time, so batches commit in the order they were appended. `flush()` resolves once every event
 * appended before it was called is durable (not those appended while it waits: with many runs
 * appending, "until the buffer is empty" could mean waiting for everyone's later events):
 * the engine awaits it between steps, so a step's events are journaled before the
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
  return new SinkWriter(store, options);
}

/** The durable sink (see createDurableSink): one write in flight at a time, flushes queued. */
class SinkWriter implements DurableSink {
  private readonly buffer: SinkBuffer;
  private readonly retryDelays: readonly number[];
  private readonly timers = new Timers();
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly backgroundMs: number | null;
  private inFlight: Promise<void> | null = null;
  /** Events of the write in flight (out of the buffer, not committed yet). */
  private writing = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private closed = false;
  private failed = false;
  private lastError: unknown = null;
  private flushing: Promise<void> = Promise.resolve();
  private retryingInBackground = false;

  constructor(
    private readonly store: EventAppender,
    private readonly options: DurableSinkOptions,
  ) {
    this.buffer = new SinkBuffer(Math.max(1, Math.floor(options.maxBatch ?? 1_000)));
    this.retryDelays = options.retryDelaysMs ?? DEFAULT_WRITE_RETRY_DELAYS_MS;
    this.sleep = options.sleep ?? ((ms: number) => this.timers.sleep(ms));
    this.backgroundMs = options.backgroundRetryMs ?? null;
  }

  get pending(): number {
    return this.buffer.size + this.writing;
  }

  append(event: HivewatchEvent): void {
    // A refused run's journal has ended, a taken one is another host's: what is appended is not journaled.
    if (!this.buffer.accepts(event.runId)) return;
    this.buffer.push(event);
    if (this.buffer.size >= this.buffer.maxBatch && !this.failed && this.inFlight === null) void this.startWrite();
    this.schedule();
  }

  flush(): Promise<void> {
    const next = this.queued(this.retryDelays);
    next.catch(() => this.retryInBackground());
    return next;
  }

  forRun(): EventSink {
    let runId: string | null = null;
    let ended = false;
    return {
      append: (event: HivewatchEvent): void => {
        runId ??= event.runId;
        if (isTerminalEvent(event)) ended = true;
        this.append(event);
      },
      flush: async (): Promise<void> => {
        await this.flush();
        const refusal = runId === null ? undefined : this.buffer.refused.get(runId);
        // Mid-run, the engine must stop; at its end, the run's end is journaled (unless that was refused too).
        if (refusal !== undefined && (!ended || !refusal.journaled)) throw refusal.error;
      },
    };
  }

  drop(runIds: readonly string[]): void {
    this.buffer.drop(runIds);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timers.wakeAll();
    await this.flush();
  }

  /** Writes one batch; on a failure that is no refusal, puts back what is not written and throws. */
  private async writeBatch(batch: HivewatchEvent[]): Promise<void> {
    const buffer = this.buffer;
    try {
      await this.store.appendEvents(batch);
      return;
    } catch (error) {
      if (error instanceof RunTakenError) {
        // Not a failure of the journal: the rest of the batch goes out with the next write.
        buffer.drop(error.runIds);
        buffer.putBack(batch.filter((event) => buffer.kept(event)));
        this.options.onRunTaken?.(error.runIds);
        return;
      }
      if (!isRefusedWrite(error)) {
        buffer.putBack(batch);
        throw error;
      }
    }
    const around = await writeAround(this.store, batch);
    for (const refusal of around.refusals) {
      buffer.refused.set(refusal.runId, refusal);
      for (const event of refusal.ending) buffer.endings.add(event);
      this.options.onRefused?.(refusal);
    }
    if (around.away !== null) {
      buffer.putBack(around.unwritten.filter((event) => buffer.kept(event)));
      throw around.away.error;
    }
  }

  /** Starts writing what is buffered unless a write is in flight; resolves when that write settles. */
  private startWrite(): Promise<void> {
    if (this.inFlight !== null) return this.inFlight;
    const batch = this.buffer.take();
    if (batch === null) return Promise.resolve();
    this.writing = batch.length;
    const settled = this.writeBatch(batch).then(
      () => {
        this.failed = false;
        this.lastError = null;
      },
      (error: unknown) => {
        this.failed = true;
        this.lastError = error;
      },
    );
    this.inFlight = settled.finally(() => {
      this.inFlight = null;
      this.writing = 0;
      // What was appended while this batch was written goes next (not after a failure: flush
      // retries): a full batch at once, the rest on the next tick.
      if (!this.failed && this.buffer.size >= this.buffer.maxBatch) void this.startWrite();
      else if (!this.failed && this.buffer.size > 0) this.schedule();
    });
    return this.inFlight;
  }

  private schedule(): void {
    if (this.scheduled !== null || this.closed) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      void this.startWrite();
    });
  }

  /** Writes until everything appended before `target` is out; throws the last error once `delays` are spent. */
  private async drain(delays: readonly number[], target: number): Promise<void> {
    let retries = 0;
    for (;;) {
      while (this.inFlight !== null) await this.inFlight;
      if (this.buffer.writtenUpTo(target)) return;
      await this.startWrite();
      if (!this.failed) continue;
      const delay = delays[retries];
      if (delay === undefined) throw this.lastError;
      retries += 1;
      await this.sleep(delay);
    }
  }

  /**
   * Flushes run one after another: each sees what the previous one left. A flush waits for the
   * events appended before it was called, not for those other runs append while it waits
   * (with many runs, "until the buffer is empty" could mean waiting for
   * everyone's later events); events commit in append order, so the earlier flushes cost nothing more.
   */
  private queued(delays: readonly number[]): Promise<void> {
    if (this.scheduled !== null) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    const target = this.buffer.appendedCount;
    const next = this.flushing
      .then(() => this.drain(delays, target))
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new HivewatchError('SYSTEM_EVENT_WRITE_FAILED', {
          message: `could not journal ${this.buffer.size} event(s): ${message}`,
          origin: 'system',
          context: { pending: this.buffer.size },
          cause: error,
        });
      });
    this.flushing = next.catch(() => undefined);
    return next;
  }

  /** After a flush gave up: one try every `backgroundMs` until the buffer is written (or the sink closed). */
  private retryInBackground(): void {
    const backgroundMs = this.backgroundMs;
    if (backgroundMs === null || this.retryingInBackground || this.closed) return;
    this.retryingInBackground = true;
    void (async () => {
      while (!this.closed && this.pending > 0) {
        await this.sleep(backgroundMs);
        if (!this.closed) await this.queued([]).catch(() => undefined);
      }
    })().finally(() => {
      this.retryingInBackground = false;
    });
  }
}
