import { useState } from 'react';
import { useRunsSnapshot } from '../app/api-context.js';
import { stableNow } from '../errors/errors-query.js';
import { usePacedReloads, type PacedReloads } from './use-paced-reloads.js';

/**
 * A page's clock and refresh count for error views (the Errors screen, an issue's page): new
 * errors journaled refresh it, paced (refresh-pacer.ts: within a second, at most one read a gap),
 * and move relative windows forward; `reload` does the same at once (the `r` key). `startAt`:
 * the clock to start from (a prefetched round's).
 */
export function useLiveRefresh(startAt: number | null = null): { now: number; refresh: number; reload: () => void; setBusy: PacedReloads['setBusy'] } {
  const [now, setNow] = useState(() => startAt ?? stableNow(Date.now()));
  const { count, reload, setBusy } = usePacedReloads(useRunsSnapshot().liveErrors, () => setNow(stableNow(Date.now())));
  return { now, refresh: count, reload, setBusy };
}
