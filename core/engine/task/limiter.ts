import { CancelledError } from '../../base/errors/hivewatch-error.js';

/** Bounds how many tasks run at once: per run, and across runs when a service shares one. */
export interface Limiter {
  /** Resolves with a release function once a slot is free; rejects with CancelledError if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

export function createLimiter(slots: number): Limiter {
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`concurrency must be a whole number of at least 1, got ${slots}`);
  let free = slots;
  const waiting: { grant: () => void; signal: AbortSignal | undefined }[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next.grant();
    else free++;
  };
  const once = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };
  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(new CancelledError());
      if (free > 0) {
        free--;
        return Promise.resolve(once());
      }
      // FIFO: tasks are queued in ordinal order, so they start in ordinal order.
      return new Promise((resolve, reject) => {
        const entry = {
          signal,
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(once());
          },
        };
        const onAbort = (): void => {
          const index = waiting.indexOf(entry);
          if (index !== -1) waiting.splice(index, 1);
          reject(new CancelledError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(entry);
      });
    },
  };
}
