/**
 * Which firings of the desktop feed a notifier has not shown yet. Each read of the feed looks back
 * past the previous one (core/service/alerts/desktop-feed.ts), so a firing comes in several
 * answers; every notifier (Electron's main process, a browser window) shows each id once. The
 * ids remembered are bounded: far more than one overlap of the feed ever holds.
 */

const REMEMBERED = 500;

export interface DesktopAlertMemory {
  /** The ids shown, oldest first. */
  readonly shown: readonly string[];
}

export const NO_DESKTOP_ALERTS_SHOWN: DesktopAlertMemory = { shown: [] };

/** The alerts of one answer not shown before, in the answer's order, and the memory after them. */
export function freshDesktopAlerts<T extends { id: string }>(memory: DesktopAlertMemory, alerts: readonly T[]): { fresh: T[]; memory: DesktopAlertMemory } {
  const known = new Set(memory.shown);
  const fresh: T[] = [];
  for (const alert of alerts) {
    if (known.has(alert.id)) continue;
    known.add(alert.id);
    fresh.push(alert);
  }
  if (fresh.length === 0) return { fresh, memory };
  const shown = [...memory.shown, ...fresh.map((a) => a.id)];
  return { fresh, memory: { shown: shown.length > REMEMBERED ? shown.slice(shown.length - REMEMBERED) : shown } };
}

/** The window's route a firing is about: its run, else its issue (its fingerprint), else the alert rules. */
export function desktopAlertRoute(alert: { runId: string | null; issue: string | null }): string {
  if (alert.runId !== null) return `#/runs/${encodeURIComponent(alert.runId)}`;
  if (alert.issue !== null) return `#/issues/${encodeURIComponent(alert.issue)}`;
  return '#/settings/alerts';
}

/**
 * One notifier's reading of the feed: `next(answer)` takes each answer in turn and gives what to
 * show. The first answer is the start (what fired before the notifier began is not news) and
 * gives nothing; `after()` is what the next read names.
 */
export class DesktopAlertReading<T extends { id: string }> {
  private through: number | undefined;
  private memory: DesktopAlertMemory = NO_DESKTOP_ALERTS_SHOWN;

  after(): number | undefined {
    return this.through;
  }

  next(answer: { alerts: readonly T[]; through: number }): T[] {
    const first = this.through === undefined;
    this.through = answer.through;
    const { fresh, memory } = freshDesktopAlerts(this.memory, answer.alerts);
    this.memory = memory;
    return first ? [] : fresh;
  }
}

/**
 * A notifier's reads of the feed, one at a time. A call while a read is in flight asks for one
 * more read after it, since the firing that prompted the call may have been stored after that
 * read was answered; the calls made meanwhile share that one read. Each call resolves once a read
 * that began after it has ended.
 */
export function oneReadAtATime(read: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const start = (): Promise<void> => {
    const reading = read().finally(() => {
      if (current === reading) current = null;
    });
    current = reading;
    return reading;
  };
  return () => {
    if (next !== null) return next;
    if (current === null) return start();
    next = current
      .catch(() => undefined)
      .then(() => {
        next = null;
        return start();
      });
    return next;
  };
}
