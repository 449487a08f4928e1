import { useAlerts, useAlertsSnapshot } from './alerts-context.js';

/**
 * The top bar's notifications control in the browser shell: a button that asks the browser's
 * permission (browsers only ask from a click), or what the answer was. Electron notifies from
 * its main process and shows nothing here.
 */
export function NotificationsButton() {
  const alerts = useAlerts();
  const { permission, unseen } = useAlertsSnapshot();
  if (permission === 'desktop' || permission === 'unsupported') return null;
  const count =
    unseen > 0 ? (
      <span className="alert-count" data-testid="alert-count">
        {unseen}
      </span>
    ) : null;
  if (permission === 'default') {
    return (
      <button type="button" className="small ghost" onClick={() => void alerts.requestPermission()} title="Show a browser notification when a run fails">
        Enable notifications {count}
      </button>
    );
  }
  return (
    <span
      className="muted notifications-state"
      data-testid="notifications-state"
      title={
        permission === 'granted'
          ? 'A failed run shows a browser notification (mute a flow on the Flows screen)'
          : 'The browser blocks notifications for this page; failures still count in the title'
      }
    >
      {permission === 'granted' ? 'Notifications on' : 'Notifications blocked'} {count}
    </span>
  );
}
