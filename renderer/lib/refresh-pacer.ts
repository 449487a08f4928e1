/**
 * When a screen that reads error views re-reads them after new errors were journaled. A change
 * asks for a refresh; the refresh comes `SETTLE_MS` later, so a burst of errors is one read, and
 * never sooner than `GAP_MS` after the one before (the screen's own first read counts: the pacer
 * is made with the screen, so a cold open is not read twice), so a storm costs the server one
 * screen's reads per gap. Changes while a refresh is waiting join it and never push it back: under a steady
 * stream of errors the screen still moves at every gap (a timer restarted on every change, as this
 * once was, never fired while errors kept coming). A refresh that comes due while the screen's
 * read is still in flight (`busy`) waits for that read to land, so a slow server never has a
 * screen's reads queued behind each other. A new error is on screen within `GAP_MS` plus the
 * screen's own read.
 */

export const SETTLE_MS = 100;
export const GAP_MS = 750;

export interface PacerTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: PacerTimers = {
  now: () => Date.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class RefreshPacer {
  private lastAt: number;
  private waiting: unknown = null;
  private busy = false;
  /** A refresh came due while busy. */
  private held = false;

  constructor(
    private readonly refresh: () => void,
    private readonly timers: PacerTimers = realTimers,
  ) {
    this.lastAt = timers.now();
  }

  /** Something the screen shows changed: a refresh is on its way (one, however many changes). */
  changed(): void {
    if (this.waiting !== null) return;
    const at = this.timers.now();
    const delay = Math.max(SETTLE_MS, this.lastAt + GAP_MS - at);
    this.waiting = this.timers.set(() => this.fire(), delay);
  }

  /** Whether the screen's read is in flight; a refresh due meanwhile comes once it has landed. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    if (busy || !this.held) return;
    this.held = false;
    this.changed();
  }

  /** The screen re-read by itself (the `r` key): the next refresh paces from it. */
  refreshed(): void {
    this.lastAt = this.timers.now();
  }

  dispose(): void {
    if (this.waiting !== null) this.timers.clear(this.waiting);
    this.waiting = null;
  }

  private fire(): void {
    this.waiting = null;
    if (this.busy) {
      this.held = true;
      return;
    }
    this.lastAt = this.timers.now();
    this.refresh();
  }
}
