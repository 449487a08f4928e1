import { CancelledError } from '../base/errors/hivewatch-error.js';
import type { Clock } from '../base/clock.js';

/**
 * Time that moves only when the test moves it: a sleep ends when `advanceTo` passes its
 * deadline, or its signal aborts. `sleepers` tells a test that the run is waiting.
 */
export class HandClock implements Clock {
  readonly kind = 'virtual' as const;
  private readonly sleeping = new Set<{ deadline: number; wake: () => void }>();
  private sleepStarted: () => void = () => undefined;
  /** Resolves when the first sleep begins: a test waits for the engine's sleep, not for time. */
  readonly firstSleep = new Promise<void>((resolve) => (this.sleepStarted = resolve));
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  get sleepers(): number {
    return this.sleeping.size;
  }
  /** The earliest deadline a sleeper waits for, or null when none sleeps. */
  get nextDeadline(): number | null {
    let next: number | null = null;
    for (const s of this.sleeping) if (next === null || s.deadline < next) next = s.deadline;
    return next;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const sleeper = { deadline: this.current + ms, wake: resolve };
      this.sleeping.add(sleeper);
      this.sleepStarted();
      signal?.addEventListener(
        'abort',
        () => {
          this.sleeping.delete(sleeper);
          reject(new CancelledError());
        },
        { once: true },
      );
    });
  }
  advanceTo(at: number): void {
    this.current = Math.max(this.current, at);
    for (const sleeper of [...this.sleeping]) {
      if (sleeper.deadline > this.current) continue;
      this.sleeping.delete(sleeper);
      sleeper.wake();
    }
  }
}
