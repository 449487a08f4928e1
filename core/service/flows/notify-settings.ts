import type { HivewatchStore } from '../../store/index.js';
import type { NotificationSettings } from '../api.js';

/**
 * Which flows do not notify when their runs fail. Notifications are on by
 * default; an operator mutes a flow from the Flows screen. The mutes are this database's, kept
 * in its `settings` table (one JSON list, sorted), so both shells and every restart agree.
 */

export const MUTED_FLOWS_SETTING = 'notify.muted-flows';

export async function readNotificationSettings(store: HivewatchStore): Promise<NotificationSettings> {
  const text = await store.getSetting(MUTED_FLOWS_SETTING);
  if (text === null) return { mutedFlows: [] };
  try {
    const parsed: unknown = JSON.parse(text);
    // A hand-edited or damaged value mutes nothing rather than failing the window.
    if (!Array.isArray(parsed)) return { mutedFlows: [] };
    return { mutedFlows: parsed.filter((f): f is string => typeof f === 'string').sort() };
  } catch {
    return { mutedFlows: [] };
  }
}

export async function setFlowMuted(store: HivewatchStore, flow: string, muted: boolean): Promise<NotificationSettings> {
  const current = new Set((await readNotificationSettings(store)).mutedFlows);
  if (muted) current.add(flow);
  else current.delete(flow);
  const mutedFlows = [...current].sort();
  await store.setSetting(MUTED_FLOWS_SETTING, JSON.stringify(mutedFlows));
  return { mutedFlows };
}
