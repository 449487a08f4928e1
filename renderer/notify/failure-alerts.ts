import type { HivewatchApi, LiveEvent } from '../../core/service/api.js';
import { failureAlertOf, type FailureAlert } from './failure-rule.js';

/**
 * The window's failure alerts: every failure the live stream brings (see
 * failure-rule.ts) of a flow that is not muted counts in the document title ("(2) Hivewatch")
 * until the operator comes back to the window, and, in the browser shell, shows a browser
 * notification once the operator allowed them. In Electron the main process notifies
 * (electron/notify.ts): the window only counts, so no failure is ever announced twice.
 * Mutes are the database's (getNotificationSettings / setFlowMuted).
 */

export type AlertPermission = 'granted' | 'denied' | 'default' | 'unsupported' | 'desktop';

/** What one notification says; a later one with the same `tag` replaces it instead of stacking. */
export interface NotificationNote {
  title: string;
  body: string;
  tag: string;
}

/** One tag for every failure: a burst of failures replaces one notification instead of stacking many. */
const FAILURE_TAG = 'hivewatch-failure';

/** The browser's notifications, behind a port so tests (and Electron) can stand in for them. */
export interface NotificationPort {
  permission(): AlertPermission;
  request(): Promise<AlertPermission>;
  show(note: NotificationNote, onClick: () => void): void;
}

export interface AlertsSnapshot {
  muted: ReadonlySet<string>;
  /** Failures since the operator last came back to the window. */
  unseen: number;
  permission: AlertPermission;
  /** Why the mutes could not be read or written, if they could not. */
  error: string | null;
}

export interface AlertsOptions {
  api: Pick<HivewatchApi, 'getNotificationSettings' | 'setFlowMuted'>;
  /** null: Electron (the main process notifies) or a browser without the Notification API. */
  notifications: NotificationPort | null;
  desktop: boolean;
  setTitle(title: string): void;
  baseTitle: string;
  /** Where a click on a notification takes the operator. */
  openRun(runId: string): void;
}

export function titleWithCount(base: string, unseen: number): string {
  return unseen > 0 ? `(${unseen}) ${base}` : base;
}

export class FailureAlerts {
  private snapshot: AlertsSnapshot;
  private readonly listeners = new Set<() => void>();
  private loaded = false;
  private pending: LiveEvent[] = [];

  constructor(private readonly options: AlertsOptions) {
    const permission: AlertPermission = options.desktop ? 'desktop' : (options.notifications?.permission() ?? 'unsupported');
    this.snapshot = { muted: new Set(), unseen: 0, permission, error: null };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): AlertsSnapshot => this.snapshot;

  /** Reads the mutes; failures that arrive meanwhile wait for them (a muted flow never slips through). */
  async load(): Promise<void> {
    try {
      const settings = await this.options.api.getNotificationSettings();
      this.update({ muted: new Set(settings.mutedFlows), error: null });
    } catch (error) {
      this.update({ error: `notification settings could not be read: ${(error as Error).message}` });
    }
    this.loaded = true;
    const waiting = this.pending;
    this.pending = [];
    this.onLive(waiting);
  }

  /** Feed of the live stream (RunsStore.onLiveEvents). */
  readonly onLive = (batch: readonly LiveEvent[]): void => {
    if (!this.loaded) {
      this.pending.push(...batch);
      return;
    }
    let added = 0;
    let last: FailureAlert | null = null;
    for (const { event } of batch) {
      const alert = failureAlertOf(event);
      if (alert === null || (alert.flow !== null && this.snapshot.muted.has(alert.flow))) continue;
      added++;
      last = alert;
    }
    if (added === 0 || last === null) return;
    const unseen = this.snapshot.unseen + added;
    this.update({ unseen });
    if (!this.options.desktop && this.options.notifications?.permission() === 'granted') {
      const alert = last;
      const more = unseen > 1 ? ` (${unseen} failures since you last looked)` : '';
      this.options.notifications.show({ title: alert.title, body: `${alert.body}${more}`, tag: FAILURE_TAG }, () => {
        this.markSeen();
        this.options.openRun(alert.runId);
      });
    }
  };

  /** The operator is back: the title loses its count. */
  markSeen(): void {
    if (this.snapshot.unseen !== 0) this.update({ unseen: 0 });
  }

  /** Shown at once (the checkbox follows the click); the database's answer then replaces it, a failure puts it back. */
  async setMuted(flow: string, muted: boolean): Promise<void> {
    const before = this.snapshot.muted;
    const optimistic = new Set(before);
    if (muted) optimistic.add(flow);
    else optimistic.delete(flow);
    this.update({ muted: optimistic });
    try {
      const settings = await this.options.api.setFlowMuted({ flow, muted });
      this.update({ muted: new Set(settings.mutedFlows), error: null });
    } catch (error) {
      this.update({ muted: before, error: `could not ${muted ? 'mute' : 'unmute'} ${flow}: ${(error as Error).message}` });
    }
  }

  /** Asks the browser for permission: only ever from an operator's click (browsers require it). */
  async requestPermission(): Promise<void> {
    if (this.options.desktop || this.options.notifications === null) return;
    this.update({ permission: await this.options.notifications.request() });
  }

  private update(patch: Partial<AlertsSnapshot>): void {
    const before = this.snapshot.unseen;
    this.snapshot = { ...this.snapshot, ...patch };
    if (this.snapshot.unseen !== before) this.options.setTitle(titleWithCount(this.options.baseTitle, this.snapshot.unseen));
    for (const listener of this.listeners) listener();
  }
}
