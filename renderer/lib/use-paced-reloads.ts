import { useCallback, useEffect, useRef, useState } from 'react';
import { RefreshPacer } from './refresh-pacer.js';

/**
 * A screen's reload count that follows something live (the runs snapshot's `liveErrors` or
 * `liveEndings`, a run's live summary): each change of `signal` (by identity) asks for a reload,
 * paced (refresh-pacer.ts: within a second, at most one a gap, never starved by a signal that keeps
 * moving); `reload` adds one at once (a button, the `r` key) and paces the next from it.
 * `onReload` runs just before each paced one (the Errors screen moves its clock then). The screen
 * says whether its read is in flight with `useReadInFlight`; a reload due meanwhile waits for it.
 */
export interface PacedReloads {
  count: number;
  reload: () => void;
  setBusy: (busy: boolean) => void;
}

export function usePacedReloads(signal: unknown, onReload?: () => void): PacedReloads {
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
  const setBusy = useCallback((busy: boolean) => pacer.current?.setBusy(busy), []);
  return { count, reload, setBusy };
}

/** Tells `reloads` whether the screen's read is in flight (its answer is not in yet). */
export function useReadInFlight(reloads: Pick<PacedReloads, 'setBusy'>, inFlight: boolean): void {
  const { setBusy } = reloads;
  useEffect(() => setBusy(inFlight), [setBusy, inFlight]);
}
