import { useEffect, useRef } from 'react';
import { useRecoveries } from '../app/api-context.js';

/**
 * Calls `retry` when the window recovers (the server came back after an outage) while `failed`
 * holds: a part that could not load its code during the outage (the charts, the flow editor)
 * loads it again by itself, as the screens' reads do (use-async.ts), instead of waiting for a
 * click on its Try again. A part that has not failed is left as it is: remounting a working
 * editor would lose its cursor and undo history.
 */
export function useRetryWhenRecovered(failed: boolean, retry: () => void): void {
  const recoveries = useRecoveries();
  const seen = useRef(recoveries);
  const latest = useRef({ failed, retry });
  latest.current = { failed, retry };
  useEffect(() => {
    if (recoveries === seen.current) return;
    seen.current = recoveries;
    if (latest.current.failed) latest.current.retry();
  }, [recoveries]);
}
