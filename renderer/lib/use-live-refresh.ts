import { useEffect, useRef, useState } from 'react';
import { useRunsSnapshot } from '../app/api-context.js';
import { stableNow } from '../errors/errors-query.js';

/** Re-read the error views when new errors were journaled, at most this often. */
const REFRESH_MS = 3_000;

/**
 * A page's clock and refresh count for error views (the Errors screen, an issue's page): new
 * errors journaled refresh it (throttled) and move relative windows forward; `reload` does the
 * same at once (the `r` key). `startAt`: the clock to start from (a prefetched round's).
 */
export function useLiveRefresh(startAt: number | null = null): { now: number; refresh: number; reload: () => void } {
  const [now, setNow] = useState(() => startAt ?? stableNow(Date.now()));
  const [refresh, setRefresh] = useState(0);
  const total = useRunsSnapshot().liveErrors;
  const lastTotal = useRef(total);

  useEffect(() => {
    if (total === lastTotal.current) return;
    const id = setTimeout(() => {
      lastTotal.current = total;
      setNow(stableNow(Date.now()));
      setRefresh((r) => r + 1);
    }, REFRESH_MS);
    return () => clearTimeout(id);
  }, [total]);
  const reload = (): void => {
    setNow(stableNow(Date.now()));
    setRefresh((n) => n + 1);
  };
  return { now, refresh, reload };
}
