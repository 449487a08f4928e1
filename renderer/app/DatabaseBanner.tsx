import { useEffect, useState } from 'react';
import type { DatabaseStatus } from '../../core/service/api.js';
import { databaseMessage } from '../live/connection.js';
import { useNow } from '../lib/use-now.js';
import { useApi, useRunsSnapshot } from './api-context.js';

/** How often the window asks its host whether the database answers (the host knows without asking the database). */
const ASK_EVERY_MS = 2_000;

interface Answer {
  status: DatabaseStatus;
  at: number;
}

/**
 * "Database unavailable for 42 s, 3 runs waiting", under the top bar, while the host cannot reach
 * its database: one line for the whole outage, however many of the window's reads fail meanwhile.
 * Not while the host itself is unreachable: that has its own banner.
 */
export function DatabaseBanner() {
  const api = useApi();
  const { connection } = useRunsSnapshot();
  const hostReachable = connection !== 'reconnecting';
  const [answer, setAnswer] = useState<Answer | null>(null);
  useEffect(() => {
    if (!hostReachable) return undefined;
    let stopped = false;
    const ask = (): void => {
      api.databaseStatus().then(
        (status) => {
          if (!stopped) setAnswer({ status, at: Date.now() });
        },
        // An older host without the call, or a request that failed: nothing to say.
        () => undefined,
      );
    };
    ask();
    const timer = window.setInterval(ask, ASK_EVERY_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [api, hostReachable]);
  const away = hostReachable && answer !== null && answer.status.unavailableForMs !== null;
  return away ? <MovingMessage answer={answer} /> : <div className="unreachable-banner" role="status" data-testid="database-unavailable" hidden />;
}

/** The count moves each second between two answers (the shared 1 Hz clock runs only while this shows). */
function MovingMessage({ answer }: { answer: Answer }) {
  const now = useNow();
  return (
    <div className="unreachable-banner" role="status" data-testid="database-unavailable">
      {databaseMessage(answer.status, now - answer.at)}
    </div>
  );
}
