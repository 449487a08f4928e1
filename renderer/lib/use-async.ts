import { useCallback, useEffect, useRef, useState } from 'react';
import { useRecoveries } from '../app/api-context.js';

/**
 * A request's state for a screen: loading, its data, or its error; `reload` runs it again.
 * `loadedAt` is the wall time `data` was read: when a later read fails, the data is kept and the
 * screen says it is stale, as of then (components/StaleNote.tsx).
 */
export type AsyncState<T> = (
  | { status: 'loading'; data: T | undefined; error: null }
  | { status: 'ready'; data: T; error: null }
  | { status: 'error'; data: T | undefined; error: string }
) & { loadedAt: number | null };

export interface AsyncResult<T> {
  state: AsyncState<T>;
  reload: () => void;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}

/** An answer already in hand when a screen mounts (a prefetch that has arrived), read at `loadedAt`. */
export interface InHand<T> {
  data: T;
  loadedAt: number;
}

/**
 * Runs `load` whenever a key changes, and again when the window recovers (the server came back:
 * a screen left on "Failed to fetch" reads again by itself); keeps the previous data while
 * reloading (no flicker) and ignores answers to requests that were superseded. `inHand`, the
 * first keys' answer already read, is drawn in the first render instead of after a "Loading"
 * frame and an effect, and not read again for those keys.
 */
export function useAsync<T>(load: () => Promise<T>, keys: readonly unknown[], inHand?: InHand<T>): AsyncResult<T> {
  const [state, setState] = useState<AsyncState<T>>(() =>
    inHand === undefined
      ? { status: 'loading', data: undefined, error: null, loadedAt: null }
      : { status: 'ready', data: inHand.data, error: null, loadedAt: inHand.loadedAt },
  );
  const [nonce, setNonce] = useState(0);
  const recoveries = useRecoveries();
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const skipFirst = useRef(inHand !== undefined);

  useEffect(() => {
    const mine = ++generation.current;
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    setState((s) => ({ status: 'loading', data: s.data, error: null, loadedAt: s.loadedAt }));
    loadRef.current().then(
      (data) => {
        if (generation.current === mine) setState({ status: 'ready', data, error: null, loadedAt: Date.now() });
      },
      (error: unknown) => {
        if (generation.current === mine) setState((s) => ({ status: 'error', data: s.data, error: errorText(error), loadedAt: s.loadedAt }));
      },
    );
  }, [...keys, nonce, recoveries]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { state, reload };
}
