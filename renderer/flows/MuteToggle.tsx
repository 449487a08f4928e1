import { useAlerts, useAlertsSnapshot } from '../notify/alerts-context.js';

/** "Notify on failure" for one flow: on by default, the mute kept in the database. */
export function MuteToggle({ flowId }: { flowId: string }) {
  const alerts = useAlerts();
  const { muted } = useAlertsSnapshot();
  const on = !muted.has(flowId);
  return (
    <label className="checkbox" title="a failed run of this flow shows a notification and counts in the window title">
      <input type="checkbox" checked={on} onChange={(e) => void alerts.setMuted(flowId, !e.currentTarget.checked)} /> Notify when a run fails
    </label>
  );
}
