import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import { flowRefMatches } from '../flows/ref.js';
import type { DeliveryFacts } from './alert-queries.js';
import type { AlertCondition, AlertRule } from './rules.js';

/**
 * What a journaled event can fire: occurrences of conditions, each with the key that makes its
 * delivery unique (`subject` + `occurrence`) and the key it is throttled by. A rule then decides
 * whether an occurrence concerns it (`ruleMatches`). Subjects: a run id for run conditions,
 * `runId/taskId` for task conditions, the fingerprint for issue conditions. Throttle keys: the
 * flow for run and task conditions (a storm of one flow's failures is one message and a count),
 * the fingerprint for issue conditions (docs/triage.md, "Alerts").
 */
export interface Occurrence {
  condition: AlertCondition;
  subject: string;
  occurrence: string;
  throttleKey: string;
  title: string;
  facts: DeliveryFacts;
  flow: string | null;
  /** The run's flow name (what `hivewatch runs` shows): a rule's `--flow` may name it. */
  flowName: string | null;
  code: string | null;
  category: string | null;
  /** retrying: how long the task has been retrying, and the number of its next attempt. */
  retryingMs?: number;
  nextAttempt?: number;
  /** running-longer-than: how long the run has been running. */
  runningMs?: number;
  /** approval-pending-longer-than: how long the run's permission prompt has waited. */
  approvalPendingMs?: number;
  /** telemetry-silent-longer-than: how long the source has sent nothing. */
  silentMs?: number;
}

/** The run facts an event needs and does not carry (its flow; whether it is an agent's session). */
export interface RunFacts {
  flow: string;
  flowName: string;
  external: boolean;
  /** Task id → when the task's first attempt started (the start of its retrying). */
  taskStarts: Map<string, number>;
}

export async function runFactsOf(store: HivewatchStore, runId: string): Promise<RunFacts | null> {
  const detail = await store.getRun(runId);
  if (!detail) return null;
  const [first] = await store.getEvents(runId, 0, 1);
  const external = first?.type === 'runStarted' && first.external !== undefined;
  const taskStarts = new Map<string, number>();
  for (const task of detail.tasks) if (task.startedAt !== null) taskStarts.set(task.taskId, task.startedAt);
  return { flow: detail.run.flow, flowName: detail.run.flowName, external, taskStarts };
}

/** The usage-limit wait: a retry timed by the runtime's reset time (core/base/errors/retry.ts `runtime_reset_time`). */
const RESET_TIME_STRATEGY = 'runtime_reset_time';

/** The occurrences one event makes. `facts` is null when the run is not in the store (pruned). */
export function occurrencesOf(event: HivewatchEvent, facts: RunFacts | null): Occurrence[] {
  if (!facts) return [];
  const base = { flow: facts.flow, flowName: facts.flowName, throttleKey: `flow:${facts.flow}` };
  if (event.type === 'runFailed' || (event.type === 'externalRunIdle' && event.error)) {
    const error = event.error!;
    const external = facts.external || event.type === 'externalRunIdle';
    const condition: AlertCondition = external ? 'session-failed' : 'run-failed';
    const what = external ? 'Agent session' : 'Run';
    const title = `${what} ${event.runId} of ${facts.flow} failed: ${error.code} · ${error.message}`;
    return [
      {
        ...base,
        condition,
        subject: event.runId,
        occurrence: `failed:${event.seq}`,
        title,
        code: error.code,
        category: error.category,
        facts: { condition, text: title, runId: event.runId, flow: facts.flow, code: error.code, category: error.category, at: event.ts },
      },
    ];
  }
  if (event.type === 'retryScheduled') {
    const subject = `${event.runId}/${event.taskId}`;
    const started = facts.taskStarts.get(event.taskId) ?? event.ts;
    const found: Occurrence[] = [];
    const retryingMs = Math.max(0, event.nextAttemptAt - started);
    const nextAttempt = event.attempt + 1;
    const title = `Task ${event.taskId} of run ${event.runId} (${facts.flow}) is retrying: attempt ${nextAttempt} at ${new Date(event.nextAttemptAt).toISOString()}`;
    found.push({
      ...base,
      condition: 'retrying-longer-than',
      subject,
      occurrence: 'retrying',
      title,
      code: null,
      category: null,
      retryingMs,
      nextAttempt,
      facts: { condition: 'retrying-longer-than', text: title, runId: event.runId, flow: facts.flow, taskId: event.taskId, at: event.ts },
    });
    found.push({ ...found[0]!, condition: 'retrying-more-than', facts: { ...found[0]!.facts, condition: 'retrying-more-than' } });
    if (event.strategy === RESET_TIME_STRATEGY) {
      const limitTitle = `Task ${event.taskId} of run ${event.runId} (${facts.flow}) hit a usage limit: ${event.reason ?? 'waiting for the reset time'}`;
      found.push({
        ...base,
        condition: 'usage-limit',
        subject,
        occurrence: `usage-limit:${event.attempt}`,
        title: limitTitle,
        code: null,
        category: null,
        facts: { condition: 'usage-limit', text: limitTitle, runId: event.runId, flow: facts.flow, taskId: event.taskId, at: event.ts },
      });
    }
    return found;
  }
  return [];
}

export function ruleMatches(rule: AlertRule, occurrence: Occurrence): boolean {
  if (rule.condition !== occurrence.condition) return false;
  if (rule.flow !== null && (occurrence.flow === null || !flowRefMatches(rule.flow, occurrence.flow, occurrence.flowName ?? ''))) return false;
  if (rule.code !== null && rule.code !== occurrence.code) return false;
  if (rule.category !== null && rule.category !== occurrence.category) return false;
  switch (rule.condition) {
    case 'retrying-longer-than':
      return (occurrence.retryingMs ?? 0) > (rule.thresholdMs ?? Infinity);
    case 'retrying-more-than':
      return (occurrence.nextAttempt ?? 0) > (rule.thresholdCount ?? Infinity);
    case 'running-longer-than':
      return (occurrence.runningMs ?? 0) > (rule.thresholdMs ?? Infinity);
    case 'approval-pending-longer-than':
      return (occurrence.approvalPendingMs ?? 0) > (rule.thresholdMs ?? Infinity);
    case 'telemetry-silent-longer-than':
      return (occurrence.silentMs ?? 0) > (rule.thresholdMs ?? Infinity);
    default:
      return true;
  }
}
