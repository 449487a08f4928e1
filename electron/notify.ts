import { DesktopAlertReading, desktopAlertRoute, oneReadAtATime } from '../core/common/desktop-alerts.js';
import type { DesktopAlertFeed, DesktopAlertView, HivewatchEvent } from '../core/service/api.js';

/**
 * What the desktop shell tells the operator when a run fails, or a task exhausts its retries
 * while its run goes on (the error caught): a native notification, but at most one every
 * `minIntervalMs` (a storm of failures, or --demo, must not bury the desktop); a notification
 * after a quiet spell says how many failures it stands for. A muted flow (the database's
 * `notify.muted-flows`, set from the Flows screen) never notifies. This is the only source of
 * notifications in Electron: the window there only counts failures in its title. The browser
 * shell's window applies the same rule (renderer/notify/failure-rule.ts; a test holds the two
 * together).
 */

export interface FailureNote {
  title: string;
  body: string;
  runId: string;
}

const RETRIES_EXHAUSTED = 'POLICY_RETRY_LIMIT_EXCEEDED';

/** The failure an event announces, with the flow a mute names; null for any other event. */
export function desktopFailureOf(event: HivewatchEvent): { flow: string | null; title: string; body: string } | null {
  if (event.type === 'runFailed') {
    const flow = event.error.correlation.flow ?? null;
    return { flow, title: `Run failed: ${flow ?? event.runId}`, body: `${event.error.code}: ${event.error.message}` };
  }
  if (event.type === 'errorOccurred' && event.caught && event.error.code === RETRIES_EXHAUSTED) {
    const flow = event.error.correlation.flow ?? null;
    return { flow, title: `Retries exhausted: ${flow ?? event.runId}`, body: event.error.message };
  }
  return null;
}

export function failureNotifier(
  show: (note: FailureNote) => void,
  options: { minIntervalMs?: number; now?: () => number; isMuted?: (flow: string) => boolean } = {},
): (event: HivewatchEvent) => void {
  const minInterval = options.minIntervalMs ?? 10_000;
  const now = options.now ?? Date.now;
  const isMuted = options.isMuted ?? (() => false);
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (event) => {
    const failure = desktopFailureOf(event);
    if (failure === null || (failure.flow !== null && isMuted(failure.flow))) return;
    const at = now();
    if (at - last < minInterval) {
      suppressed++;
      return;
    }
    last = at;
    const more = suppressed > 0 ? ` (and ${suppressed} more failed run${suppressed > 1 ? 's' : ''} before it)` : '';
    suppressed = 0;
    show({ title: failure.title, body: failure.body.slice(0, 200) + more, runId: event.runId });
  };
}

/**
 * The alert rules' desktop channel in Electron: reads the service's desktop feed and shows each
 * firing once (core/common/desktop-alerts.ts), with the window route a click opens. The window
 * itself reads nothing here (renderer/notify/desktop-alerts.ts is the browser shell's), so each
 * firing is one native notification. `check` runs one read at a time.
 */
export function desktopAlertNotifier(
  read: (after: number | undefined) => Promise<DesktopAlertFeed>,
  show: (alert: DesktopAlertView, route: string) => void,
): () => Promise<void> {
  const reading = new DesktopAlertReading<DesktopAlertView>();
  return oneReadAtATime(async () => {
    for (const alert of reading.next(await read(reading.after()))) show(alert, desktopAlertRoute(alert));
  });
}
