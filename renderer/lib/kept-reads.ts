/**
 * Reads asked before the screen that shows them is on the page, kept until it takes them: the
 * window asks the first reads of the screen it opens on as it starts (app/first-reads.ts), and a
 * page asks its sections' reads in its own first turn (issues/issue-reads.ts), so they travel in
 * one batch instead of a round trip each once the screen has drawn. Each is taken once. One not
 * taken within KEPT_MS (the operator moved on, or came back much later) is never handed out
 * stale, and one that failed is dropped: a screen that mounts later (its chunk came once the
 * server was back) reads afresh rather than showing the old failure. A screen that reads again
 * (a refresh, a retry) asks afresh.
 */

export const KEPT_MS = 5_000;

const kept = new Map<string, { read: Promise<unknown>; at: number }>();

/** Keeps `read` under `key` (replacing what was kept there) for the screen to take. */
export function keepRead(key: string, read: Promise<unknown>, now = Date.now()): void {
  for (const [k, entry] of kept) if (now - entry.at > KEPT_MS) kept.delete(k);
  const entry = { read, at: now };
  // Nobody may take it: never an unhandled rejection, and never a failure handed out later.
  read.catch(() => {
    if (kept.get(key) === entry) kept.delete(key);
  });
  kept.set(key, entry);
}

/** The read kept under `key`, once and while fresh, or null. */
export function takeKept<T>(key: string, now = Date.now()): Promise<T> | null {
  const entry = kept.get(key);
  kept.delete(key);
  return entry !== undefined && now - entry.at <= KEPT_MS ? (entry.read as Promise<T>) : null;
}

/** The read kept under `key`, once and while fresh; else `ask()`. */
export function takeRead<T>(key: string, ask: () => Promise<T>, now = Date.now()): Promise<T> {
  return takeKept<T>(key, now) ?? ask();
}
