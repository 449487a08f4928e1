import { useSyncExternalStore } from 'react';

/**
 * One shared 1 Hz clock for relative times, durations and countdowns: a single timer, running
 * only while something on screen shows a moving time.
 */

const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === null) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

const getNow = (): number => now;

/** Wall-clock milliseconds, updated every second while the component is mounted. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, getNow, getNow);
}
