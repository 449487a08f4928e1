import type { HivewatchStore } from '../../store/contract.js';
import type { AttemptTelemetry, RunDetail } from '../api.js';

/**
 * Puts the agent telemetry sent from inside each attempt (the external runs
 * whose `external_runs` row names the attempt) on the attempts of a run's detail: the requests
 * the CLI reported, its own retries among them.
 */
export async function withAttemptTelemetry(detail: RunDetail, store: HivewatchStore): Promise<RunDetail> {
  const links = await store.attemptTelemetry(detail.run.id);
  if (links.length === 0) return detail;
  const byAttempt = new Map<string, AttemptTelemetry[]>();
  for (const link of links) {
    const session = await store.getRun(link.runId);
    const attempts = session?.attempts ?? [];
    const calls = attempts.map((a, i) => ({
      n: i + 1,
      status: a.status === 'succeeded' || a.status === 'failed' ? a.status : ('open' as const),
      code: a.errorCode,
      message: a.error?.message ?? null,
    }));
    // A linked session journals its failed requests as failed attempts only (core/otel/session/session-journal.ts); its
    // error occurrences are the failed tools.
    const failedCalls = calls.filter((c) => c.status === 'failed').length;
    const key = `${link.taskId}\n${link.attempt}`;
    const list = byAttempt.get(key) ?? [];
    list.push({
      runId: link.runId,
      sessionId: link.sessionId,
      origin: link.origin,
      apiCalls: attempts.length,
      errors: failedCalls + (session?.run.errorCount ?? 0),
      calls,
    });
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
