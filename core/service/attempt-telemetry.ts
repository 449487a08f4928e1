import type { HivewatchStore } from '../store/contract.js';
import type { AttemptTelemetry, RunDetail } from './api.js';

/**
 * Puts the agent telemetry sent from inside each attempt (issue #11 part 5: the external runs
 * whose `external_runs` row names the attempt) on the attempts of a run's detail.
 */
export async function withAttemptTelemetry(detail: RunDetail, store: HivewatchStore): Promise<RunDetail> {
  const links = await store.attemptTelemetry(detail.run.id);
  if (links.length === 0) return detail;
  const byAttempt = new Map<string, AttemptTelemetry[]>();
  for (const link of links) {
    const run = await store.getRunRow(link.runId);
    const key = `${link.taskId}\n${link.attempt}`;
    const list = byAttempt.get(key) ?? [];
    list.push({ runId: link.runId, sessionId: link.sessionId, origin: link.origin, apiCalls: run?.attemptCount ?? 0, errors: run?.errorCount ?? 0 });
    byAttempt.set(key, list);
  }
  return {
    ...detail,
    tasks: detail.tasks.map((task) => ({
      ...task,
      attempts: task.attempts.map((a) => {
        const telemetry = byAttempt.get(`${task.taskId}\n${a.attempt}`);
        return telemetry ? { ...a, telemetry } : a;
      }),
    })),
  };
}
