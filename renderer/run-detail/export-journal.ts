import type { HivewatchApi } from '../../core/service/api.js';
import { fetchEvents } from './run-reads.js';

/**
 * Downloads a run's whole journal (getEvents, every page) as pretty JSON. A Blob URL and an
 * <a download>: no server round trip, nothing inline, allowed by the shells' CSP.
 */
export async function exportJournal(api: HivewatchApi, runId: string): Promise<number> {
  const events = await fetchEvents(api, runId);
  const blob = new Blob([JSON.stringify({ runId, exportedAt: new Date().toISOString(), events }, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${runId}-journal.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return events.length;
}
