import { DesktopAlertReading, desktopAlertRoute, oneReadAtATime } from '../../core/common/desktop-alerts.js';
import type { DesktopAlertView, HivewatchApi } from '../../core/service/api.js';
import type { NotificationPort } from './failure-alerts.js';

/**
 * The browser shell's side of the alert rules' desktop channel: reads the service's desktop feed
 * (listDesktopAlerts) and shows each firing once as a browser notification, through the same
 * port and permission as the failure notifications (NotificationsButton asks for it). The tag is
 * the firing's, so a follow-up ("Resolved: …") replaces its alert and two tabs of one browser
 * show one. In Electron the main process reads the feed and notifies natively (electron/main.ts);
 * the window there reads nothing. Docs: docs/triage.md "Desktop notifications".
 */

export interface DesktopAlertsOptions {
  api: Pick<HivewatchApi, 'listDesktopAlerts'>;
  /** null: Electron (its main process notifies) or a browser without the Notification API. */
  notifications: NotificationPort | null;
  /** Where a click on the notification takes the operator (a hash route), or null for nowhere. */
  open(route: string): void;
}

export class DesktopAlerts {
  private readonly reading = new DesktopAlertReading<DesktopAlertView>();
  private readonly readOnce = oneReadAtATime(() => this.read());

  constructor(private readonly options: DesktopAlertsOptions) {}

  /**
   * A read of the feed, one at a time (a call during a read is answered by one more read after
   * it: core/common/desktop-alerts.ts). The first read only learns where the feed starts;
   * firings that come while notifications are not allowed are passed over, not kept for later
   * (old news).
   */
  check(): Promise<void> {
    if (this.options.notifications === null) return Promise.resolve();
    return this.readOnce();
  }

  private async read(): Promise<void> {
    const port = this.options.notifications!;
    const after = this.reading.after();
    const fresh = this.reading.next(await this.options.api.listDesktopAlerts(after === undefined ? {} : { after }));
    if (port.permission() !== 'granted') return;
    for (const alert of fresh) {
      port.show({ title: alert.title, body: alert.body, tag: `hivewatch-alert-${alert.firing}` }, () => this.options.open(desktopAlertRoute(alert)));
    }
  }
}
