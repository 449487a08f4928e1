import { CancelledError } from './errors/hivewatch-error.js';

/**
 * Time as the engine sees it. Backoff sleeps and event timestamps go through a Clock so that
 * tests and `--virtual-clock` runs are exact and instant. A sleep ended by its signal rejects
 * with CancelledError: an interrupted sleep is cancellation, never an error (rule 4).
 */
export interface Clock {
  readonly kind: 'real' | 'virtual';
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

function abortReason(signal: AbortSignal): CancelledError {
  return signal.reason instanceof CancelledError ? signal.reason : new CancelledError();
}

export class RealClock implements Clock {
  readonly kind = 'real' as const;

  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      // Node fires timers above 2^31-1 ms at once; validation caps delays far below that anyway.
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.min(ms, MAX_TIMER_MS),
      );
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * A clock that jumps: a sleep moves virtual time forward to its deadline (never backwards) and
 * resolves on the next macrotask, so concurrent sleeps overlap as they would in real time,
 * other work still interleaves, and no real time passes.
 */
export class VirtualClock implements Clock {
  readonly kind = 'virtual' as const;
  private current: number;
  /** Every sleep requested, in order: what tests assert a schedule against. */
  readonly sleeps: number[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    const deadline = this.current + ms;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = (): void => {
        clearImmediate(handle);
        reject(abortReason(signal as AbortSignal));
      };
      const handle = setImmediate(() => {
        signal?.removeEventListener('abort', onAbort);
        this.current = Math.max(this.current, deadline);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
