import type { EventSink, HivewatchEvent } from '../engine/events.js';
import { HivewatchError } from '../errors/hivewatch-error.js';

/** What the sink needs of the store. */
export interface EventAppender {
  appendEvents(events: readonly HivewatchEvent[]): void;
}

export interface DurableSinkOptions {
  /** Events per transaction when a storm fills the buffer before the next tick (default 1000). */
  maxBatch?: number;
}

export interface DurableSink extends EventSink {
  /** Events appended but not yet committed. */
  readonly pending: number;
  /** Flushes what is buffered and stops scheduling writes. */
  close(): Promise<void>;
}

/**
 * The engine's EventSink over the store. `append` only buffers (the engine's hot path never
 * waits on the disk) and schedules a write on the next turn of the event loop, so live readers
 * see events within a tick; a full buffer (`maxBatch`) is written at once, so a storm becomes
 * transactions of `maxBatch` events, never one per event. `flush()` commits everything buffered
 * in one transaction and resolves once it is durable: the engine awaits it between steps, so a
 * step's events are on disk before the next step starts.
 *
 * A failed write rolls back completely and leaves the buffer as it was: the next flush tries
 * again (a busy database recovers) and rejects with SYSTEM_EVENT_WRITE_FAILED if it fails too.
 * Events must not be mutated after `append`.
 */
export function createDurableSink(store: EventAppender, options: DurableSinkOptions = {}): DurableSink {
  const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 1_000));
  let buffer: HivewatchEvent[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  let closed = false;
  let lastError: unknown = null;

  const write = (): void => {
    if (buffer.length === 0) return;
    const batch = buffer;
    store.appendEvents(batch);
    buffer = buffer === batch ? [] : buffer.slice(batch.length);
    lastError = null;
  };

  const tryWrite = (): void => {
    try {
      write();
    } catch (error) {
      lastError = error;
    }
  };

  const schedule = (): void => {
    if (scheduled !== null || closed) return;
    scheduled = setImmediate(() => {
      scheduled = null;
      tryWrite();
    });
  };

  const flush = (): Promise<void> => {
    if (scheduled !== null) {
      clearImmediate(scheduled);
      scheduled = null;
    }
    try {
      write();
      return Promise.resolve();
    } catch (error) {
      lastError = error;
      const message = error instanceof Error ? error.message : String(error);
      return Promise.reject(
        new HivewatchError('SYSTEM_EVENT_WRITE_FAILED', {
          message: `could not journal ${buffer.length} event(s): ${message}`,
          origin: 'system',
          context: { pending: buffer.length },
          cause: error,
        }),
      );
    }
  };

  return {
    get pending() {
      return buffer.length;
    },
    append(event: HivewatchEvent): void {
      buffer.push(event);
      if (buffer.length >= maxBatch && lastError === null) tryWrite();
      if (buffer.length > 0) schedule();
    },
    flush,
    async close(): Promise<void> {
      closed = true;
      await flush();
    },
  };
}
