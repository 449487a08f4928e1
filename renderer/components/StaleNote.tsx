import { useRunsSnapshot } from '../app/api-context.js';
import { staleWords, type StaleFacts } from '../lib/stale-words.js';
import { useNow } from '../lib/use-now.js';

/**
 * The marker of a screen whose data may be out of date (lib/stale-words.ts): its last read
 * failed and it kept an earlier one's data, or the live stream is down. A polite status, so it
 * is heard once when it appears; nothing at all while the screen is up to date.
 */
export function StaleNote({ failed = null, showing = null, stream = true }: Partial<Pick<StaleFacts, 'failed' | 'showing'>> & { stream?: boolean }) {
  const { connection, downSince } = useRunsSnapshot();
  const now = useNow();
  // `stream`: also say when the live stream is down (a screen's note; a panel within one leaves that to it).
  const words = staleWords({ failed, showing, downSince: stream && connection === 'reconnecting' ? downSince : null }, now);
  return (
    <p className="stale-note" role="status" data-testid="stale-note" hidden={words === null}>
      {words !== null && (
        <>
          <span className="stale-icon" aria-hidden="true" />
          {words}
        </>
      )}
    </p>
  );
}

/** A failed read of `useAsync` that kept data, as StaleNote's `failed`. */
export function failedRead(state: { status: string; error: string | null; data: unknown; loadedAt: number | null }): StaleFacts['failed'] {
  return state.status === 'error' && state.data !== undefined ? { error: state.error ?? 'unknown error', loadedAt: state.loadedAt } : null;
}
