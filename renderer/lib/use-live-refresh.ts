import { useEffect, useRef, useState } from 'react';
import { useRunsSnapshot } from '../app/api-context.js';
import { stableNow } from '../errors/errors-query.js';
import { RefreshPacer } from './refresh-pacer.js';

/**
 * A page's clock and refresh count for error views (the Errors screen, an issue's page): new
 * errors journaled refresh it, paced (refresh-pacer.ts: within a second, at most one read a gap),
 * and move relative windows forward; `reload` does the same at once (the `r` key). `startAt`:
 * the clock to start from (a prefetched round's).
 */
export function useLiveRefresh(startAt: number | null = null): { now: number; refresh: number; reload: () => void } {
  const [now, setNow] = useState(() => startAt ?? stableNow(Date.now()));
  const [refresh, setRefresh] = useState(0);
  const total = useRunsSnapshot().liveErrors;
  const lastTotal = useRef(total);
  const pacer = useRef<RefreshPacer | null>(null);
  const reread = (): void => {
    setNow(stableNow(Date.now()));
    setRefresh((n) => n + 1);
  };

  useEffect(() => {
    const made = new RefreshPacer(reread);
    pacer.current = made;
    return () => {
      made.dispose();
      if (pacer.current === made) pacer.current = null;
    };
  }, []);
  useEffect(() => {
    if (total === lastTotal.current) return;
    lastTotal.current = total;
    pacer.current?.changed();
  }, [total]);
  const reload = (): void => {
    pacer.current?.refreshed();
    reread();
  };
  return { now, refresh, reload };
}
