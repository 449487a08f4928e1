import type { HivewatchEvent } from '../../../core/service/api.js';
import { formatDelay, formatDuration } from '../../lib/format.js';

/**
 * One line per journal event for the event log: what happened, in the operator's words. Plain
 * text (rendered as text, never as HTML).
 */
export function describeEvent(e: HivewatchEvent): string {
  switch (e.type) {
    case 'runStarted':
      if (e.external) return `${e.flowName} seen through telemetry from ${e.external.source} (${e.external.origin}, session ${e.external.sessionId})`;
      return `${e.flowName} started${e.retryOf ? ` (retry of ${e.retryOf})` : ''}${e.resumedFrom ? ` (resumed from ${e.resumedFrom} after step ${e.resumeStep})` : ''}, ${e.options.clock} clock, max ${e.options.maxSteps} steps`;
    case 'stepStarted':
      return `step ${e.step}: ${e.frontier.length} task${e.frontier.length === 1 ? '' : 's'} (${e.frontier.map((f) => f.name).join(', ')})`;
    case 'taskStarted':
      return e.maxAttempts > 0
        ? `task ${e.taskId} “${e.name}” on ${e.agent}, up to ${e.maxAttempts} attempt${e.maxAttempts === 1 ? '' : 's'}`
        : `task ${e.taskId} “${e.name}” on ${e.agent}, as many attempts as the agent makes`;
    case 'attemptStarted':
      return `task ${e.taskId} attempt ${e.attempt}`;
    case 'attemptProcess':
      return `task ${e.taskId} attempt ${e.attempt}: process group ${e.pid} on ${e.hostname}`;
    case 'attemptProcessEscaped':
      return `task ${e.taskId} attempt ${e.attempt}: ⚠ ${e.message}`;
    case 'attemptSucceeded':
      return `task ${e.taskId} attempt ${e.attempt} succeeded in ${formatDuration(e.durationMs)}`;
    case 'attemptFailed':
      return `task ${e.taskId} attempt ${e.attempt} failed: ${e.error.code}: ${e.error.message}${e.awaiting?.length ? ` · whether it counts waits for ${e.awaiting.join(', ')} to end` : ''}`;
    case 'retryScheduled':
      return `task ${e.taskId} retries in ${formatDelay(e.delayMs)} (${e.strategy}${e.reason ? `: ${e.reason}` : ''})${e.usageLimit ? ` · usage limit, reported: "${e.usageLimit.reported}"` : ''}`;
    case 'backoffSkipped':
      return `task ${e.taskId}: backoff after attempt ${e.attempt} skipped by the operator`;
    case 'taskSucceeded':
      return `task ${e.taskId} succeeded after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}`;
    case 'taskFailed':
      return `task ${e.taskId} ${e.cancelled ? 'cancelled' : 'failed'} after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}: ${e.error.code}`;
    case 'errorOccurred':
      return `${e.error.category}/${e.error.code} from ${e.error.origin}${e.caught ? ', caught' : ''}${e.retrying ? ', will retry' : ''}: ${e.error.message}`;
    case 'writeApplied':
      return `step ${e.step} wrote channel ${e.channel}`;
    case 'checkpointSaved':
      return `checkpoint after step ${e.step}`;
    case 'stepFinished':
      return `step ${e.step} committed`;
    case 'cancelRequested':
      return `cancel requested: ${e.reason}${e.alreadyCancelling ? ' (already cancelling)' : ''}`;
    case 'runCancelling':
      return `cancelling (epoch ${e.epoch}): no new task starts`;
    case 'receiptIgnoredStale':
      return `task ${e.taskId} attempt ${e.attempt}: a late ${e.outcome} result of epoch ${e.epoch} was ignored`;
    case 'attemptCancelled':
      return `task ${e.taskId} attempt ${e.attempt}: cancelled, a sibling branch failed${e.reported ? ` (it had ${e.reported.outcome})` : ''}`;
    case 'attemptJudgedCancelled':
      return `task ${e.taskId} attempt ${e.attempt}: counts as cancelled, a lower sibling branch failed first (its failure is not an error of its own)`;
    case 'runCompleted':
      return `completed after ${e.steps} step${e.steps === 1 ? '' : 's'}`;
    case 'runFailed':
      return `failed: ${e.error.code}: ${e.error.message}`;
    case 'runCancelled':
      return `cancelled${e.correlation.step !== null ? ` during step ${e.correlation.step}` : ''}: ${e.cause.reason}`;
    case 'runInterrupted':
      return `interrupted: ${e.error.message}${(e.processes ?? []).map((p) => `; ${p.message}`).join('')}`;
    case 'workspaceReady':
      return `works on branch ${e.branch} of ${e.repo}, from ${e.base.slice(0, 10)}`;
    case 'attemptChanges':
      return `task ${e.taskId} attempt ${e.attempt} changed ${e.changed.length} file${e.changed.length === 1 ? '' : 's'}${e.outsideScope.length ? `, ${e.outsideScope.length} outside its scope` : ''}`;
    case 'checkFinished':
      return `task ${e.taskId} attempt ${e.attempt}: ${e.kind} ${e.name} ${e.ok ? 'passed' : e.timedOut ? 'timed out' : 'failed'}${e.kind === 'verifier' ? '' : ` in ${formatDuration(e.durationMs)}`}`;
    case 'attemptCommitted':
      return `task ${e.taskId} attempt ${e.attempt} committed ${e.commit.slice(0, 10)} on ${e.branch}`;
    case 'branchMerged':
      return `step ${e.step} merged ${e.merged.length} task commit${e.merged.length === 1 ? '' : 's'} into ${e.branch}: ${e.head.slice(0, 10)}`;
    case 'externalEvent':
      return `${e.known ? '' : 'unknown telemetry event '}${e.name}${e.taskId ? ` (task ${e.taskId})` : ''}${attributeSummary(e.attributes)}`;
    case 'externalRunIdle':
      return `ended: no telemetry for ${formatDuration(e.quietMs)}`;
    case 'externalRunReopened':
      return 'telemetry resumed: running again';
    case 'externalRunSpawned':
      return `started by the agent of run ${e.spawnedBy.runId}${e.spawnedBy.agentName ? ` (${e.spawnedBy.agentName})` : ''}: a subagent from now on`;
    case 'externalLimitReached':
      return `task ${e.taskId} stopped by the usage limit until ${new Date(e.resetAt).toISOString()} · reported: "${e.reported}"; it continues when the agent sends telemetry again`;
    case 'externalLimitLifted':
      return `task ${e.taskId}: telemetry again after the usage limit stopped it: running again`;
  }
}

/** A few of a telemetry event's attributes, as `key=value`. */
function attributeSummary(attributes: Record<string, unknown>): string {
  const parts = Object.entries(attributes)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .slice(0, 6)
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

/** How an event type reads in the filter, grouped by what it is about. */
export type EventTone = 'run' | 'step' | 'ok' | 'fail' | 'retry' | 'cancel' | 'info';

export function toneOf(type: HivewatchEvent['type']): EventTone {
  switch (type) {
    case 'runStarted':
    case 'runCompleted':
      return 'run';
    case 'stepStarted':
    case 'stepFinished':
    case 'checkpointSaved':
    case 'writeApplied':
      return 'step';
    case 'attemptSucceeded':
    case 'taskSucceeded':
    case 'attemptCommitted':
    case 'branchMerged':
      return 'ok';
    case 'attemptFailed':
    case 'taskFailed':
    case 'errorOccurred':
    case 'runFailed':
    case 'runInterrupted':
    case 'attemptProcessEscaped':
      return 'fail';
    case 'retryScheduled':
    case 'backoffSkipped':
    case 'externalLimitReached':
    case 'externalLimitLifted':
      return 'retry';
    case 'cancelRequested':
    case 'runCancelling':
    case 'runCancelled':
    case 'receiptIgnoredStale':
    case 'attemptJudgedCancelled':
      return 'cancel';
    default:
      return 'info';
  }
}

/**
 * The tone of one event: as its type, except that a cancellation is never drawn as a failure (a
 * `taskFailed` of a cancelled task, an attempt or error that is the cancel itself).
 */
export function eventTone(e: HivewatchEvent): EventTone {
  if (e.type === 'taskFailed' && e.cancelled) return 'cancel';
  if ((e.type === 'attemptFailed' || e.type === 'errorOccurred') && e.error.code === 'SYSTEM_CANCELLED') return 'cancel';
  return toneOf(e.type);
}

/** The tone of a type's filter chip: `cancel` when every event of the type is a cancellation. */
export function chipTones(events: readonly HivewatchEvent[]): Map<HivewatchEvent['type'], EventTone> {
  const tones = new Map<HivewatchEvent['type'], EventTone>();
  for (const e of events) {
    const tone = eventTone(e);
    const seen = tones.get(e.type);
    if (seen === undefined || (seen === 'cancel' && tone !== 'cancel')) tones.set(e.type, tone === 'cancel' ? 'cancel' : toneOf(e.type));
  }
  return tones;
}

/** Event types present in a journal with their counts, in first-seen order. */
export function typeCounts(events: readonly HivewatchEvent[]): [HivewatchEvent['type'], number][] {
  const counts = new Map<HivewatchEvent['type'], number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return [...counts];
}

/** Pretty JSON of an event for the expanded row, and its line count (the row's height). */
export function eventJson(e: HivewatchEvent): { text: string; lines: number } {
  const text = JSON.stringify(e, null, 2);
  let lines = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return { text, lines };
}
