import { useEffect, useRef, useState } from 'react';
import { RefreshPacer } from './refresh-pacer.js';

/**
 * A screen's reload count that follows something live (the runs snapshot's `liveErrors` or
 * `liveEndings`, a run's live summary): each change of `signal` (by identity) asks for a reload,
 * paced (refresh-pacer.ts: within a second, at most one a gap, never starved by a signal that keeps
 * moving); `reload` adds one at once (a button, the `r` key) and paces the next from it.
 * `onReload` runs just before each paced one (the Errors screen moves its clock then).
 */
export function usePacedReloads(signal: unknown, onReload?: () => void): { count: number; reload: () => void } {
  const [count, setCount] = useState(0);
  const lastSignal = useRef(signal);
  const pacer = useRef<RefreshPacer | null>(null);
  const beforeReload = useRef(onReload);
  beforeReload.current = onReload;

  useEffect(() => {
    const made = new RefreshPacer(() => {
      beforeReload.current?.();
      setCount((n) => n + 1);
    });
    pacer.current = made;
    return () => {
      made.dispose();
      if (pacer.current === made) pacer.current = null;
    };
  }, []);
  useEffect(() => {
    if (Object.is(signal, lastSignal.current)) return;
    lastSignal.current = signal;
    pacer.current?.changed();
  }, [signal]);
  const reload = (): void => {
    pacer.current?.refreshed();
    beforeReload.current?.();
    setCount((n) => n + 1);
  };
  return { count, reload };
}
