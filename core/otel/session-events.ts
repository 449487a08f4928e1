import { createHash } from 'node:crypto';
import type { HivewatchEventBody } from '../base/events.js';
import type { ExternalSessionRow } from '../store/external.js';
import { ADJUSTED_EVENT, saneTime, type Adjustment } from './bounds.js';
import { apiFailureError, toolFailureError } from './classify.js';
import type { TelemetryRecord } from './decode.js';
import { eventName, EXTERNAL_FLOW_PREFIX, factOf, keptAttributes, sessionKeyOf, type Fact, type SessionRef } from './mapping.js';

/**
 * The journal events of one session's records (pure, given the session's bookkeeping): the run
 * starts at the session's first record with one step that holds every prompt task; a prompt
 * starts a task (ending the previous one); each API request or error is an attempt of the open
 * task; an API error or a failed tool is an `errorOccurred`; everything else an `externalEvent`.
 */

/** Every external run has one step: the session; its prompts are the step's tasks. */
const SESSION_STEP = 1;

export type PlannedEvent = HivewatchEventBody & { ts: number };

export interface PlanOptions {
  /** The operator allows prompt text in the journal (setting `otel.store_prompts`). */
  storePrompts: boolean;
  /** Wall-clock ms the payload arrived (the time of records that carry none). */
  receivedAt: number;
}

function externalRunId(session: SessionRef): string {
  const digest = createHash('sha256').update(sessionKeyOf(session)).digest('hex').slice(0, 16);
  return `ext-${session.agent}-${digest}`;
}

const LABEL: Record<string, string> = { 'claude-code': 'Claude Code', 'codex-cli': 'Codex CLI' };

export function newSessionRow(session: SessionRef, at: number): ExternalSessionRow {
  return {
    sessionKey: sessionKeyOf(session), runId: externalRunId(session), origin: session.origin, sessionId: session.sessionId,
    parent: session.parent, lastEventAt: at, idle: false, openTask: null, openTaskAttempts: 0, taskCount: 0, lastSeq: 0,
  };
}

/** Task ids are numbered (a prompt id seen again after another prompt starts a new task, never an old one's). */
const promptTaskId = (promptId: string | null, n: number): string => (promptId !== null ? `prompt-${n}-${promptId}` : `prompt-${n}`);

/** Plans `records` (all of one session, in order) against `row`; returns the events and the row after them. */
export function planSession(
  session: SessionRef,
  row: ExternalSessionRow,
  records: readonly TelemetryRecord[],
  options: PlanOptions,
): { events: PlannedEvent[]; row: ExternalSessionRow } {
  const plan = new SessionPlan(session, row, options);
  const first = records[0];
  plan.begin(first ? plan.timeOf(first).ts : options.receivedAt);
  for (const record of records) plan.add(record);
  return { events: plan.events, row: plan.row };
}

/** One payload's events of one session, and the session's bookkeeping as they leave it. */
class SessionPlan {
  readonly events: PlannedEvent[] = [];
  readonly row: ExternalSessionRow;

  constructor(
    private readonly session: SessionRef,
    row: ExternalSessionRow,
    private readonly options: PlanOptions,
  ) {
    this.row = { ...row };
  }

  /** A record's time: its own when sane, else the payload's arrival (bounds.ts). */
  timeOf(record: TelemetryRecord): { ts: number; adjustment: Adjustment | null } {
    return saneTime(record.timeMs, record.timeGiven, record.timeField, this.options.receivedAt);
  }

  /** A new session's run and step, or the reopening of an idle one. */
  begin(startTs: number): void {
    const { session, row: r } = this;
    if (r.lastSeq === 0) {
      this.events.push({
        type: 'runStarted', ts: startTs,
        flow: `${EXTERNAL_FLOW_PREFIX}${session.agent}`,
        flowName: `${LABEL[session.agent] ?? session.agent} session ${session.sessionId.slice(0, 8)}`,
        options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: session.agent },
        resumedFrom: null, retryOf: null, resumeStep: 0,
        external: {
          origin: session.origin, sessionId: session.sessionId, source: session.source,
          ...(session.parent ? { parent: session.parent } : {}),
        },
      });
      this.events.push({ type: 'stepStarted', ts: startTs, step: SESSION_STEP, frontier: [] });
      // The session's own values (its id, its service's name) are noted once, when its run starts.
      this.noteAdjusted(startTs, 'session', session.adjustments);
    } else if (r.idle) {
      this.events.push({ type: 'externalRunReopened', ts: startTs, idleSince: r.lastEventAt });
    }
    r.idle = false;
  }

  /** Values the receiver did not take as sent, journaled just before the events they belong to. */
  private noteAdjusted(ts: number, event: string, adjustments: readonly Adjustment[]): void {
    if (adjustments.length === 0) return;
    this.events.push({ type: 'externalEvent', ts, name: ADJUSTED_EVENT, known: true, taskId: this.row.openTask, attributes: { event, adjustments: [...adjustments] } });
  }

  private closeOpenTask(ts: number): void {
    const r = this.row;
    if (r.openTask === null) return;
    this.events.push({ type: 'taskSucceeded', ts, step: SESSION_STEP, ordinal: r.taskCount - 1, taskId: r.openTask, attempts: r.openTaskAttempts, output: '' });
    r.openTask = null;
    r.openTaskAttempts = 0;
  }

  private openTask(promptId: string | null, ts: number): void {
    const r = this.row;
    this.closeOpenTask(ts);
    r.taskCount += 1;
    r.openTask = promptTaskId(promptId, r.taskCount);
    this.events.push({
      type: 'taskStarted', ts, step: SESSION_STEP, ordinal: r.taskCount - 1, taskId: r.openTask,
      name: `prompt ${r.taskCount}`, agent: this.session.agent, maxAttempts: 0,
    });
  }

  /** The task an API or tool event belongs to: its prompt's (a new task when that prompt was not seen). */
  private taskFor(promptId: string | null, ts: number): { taskId: string; ordinal: number } {
    const r = this.row;
    if (r.openTask === null || (promptId !== null && r.openTask !== promptTaskId(promptId, r.taskCount))) this.openTask(promptId, ts);
    return { taskId: r.openTask as string, ordinal: r.taskCount - 1 };
  }

  /** One record's events. */
  add(record: TelemetryRecord): void {
    const { session, row: r, events, options } = this;
    const { ts, adjustment } = this.timeOf(record);
    r.lastEventAt = Math.max(r.lastEventAt, options.receivedAt);
    const fact: Fact = factOf(record);
    const name = eventName(record);
    const adjustments = adjustment ? [adjustment, ...fact.adjustments] : fact.adjustments;
    this.noteAdjusted(ts, name || '(unnamed)', adjustments);
    const context = {
      session: session.sessionId, prompt: fact.promptId, event: name,
      ...(session.parent ? { hivewatch: session.parent } : {}),
      ...(adjustments.length > 0 ? { adjustments } : {}),
    };
    const flow = `${EXTERNAL_FLOW_PREFIX}${session.agent}`;
    switch (fact.kind) {
      case 'prompt':
        // A prompt event that arrives after its own API events (exporters batch independently) joins their task.
        if (r.openTask === null || fact.promptId === null || r.openTask !== promptTaskId(fact.promptId, r.taskCount)) this.openTask(fact.promptId, ts);
        events.push({ type: 'externalEvent', ts, name, known: true, taskId: r.openTask, attributes: keptAttributes(record.attributes, options.storePrompts) });
        break;
      case 'apiRequest': {
        const t = this.taskFor(fact.promptId, ts);
        r.openTaskAttempts += 1;
        const ref = { step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId, attempt: r.openTaskAttempts };
        events.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
        events.push({ type: 'attemptSucceeded', ts, ...ref, durationMs: fact.durationMs });
        break;
      }
      case 'apiError': {
        const t = this.taskFor(fact.promptId, ts);
        r.openTaskAttempts += 1;
        const ref = { step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId, attempt: r.openTaskAttempts };
        const error = apiFailureError({
          runtime: session.agent, status: fact.status, message: fact.message, timestamp: ts,
          context: { ...context, model: fact.model, reportedAttempt: fact.reportedAttempt, durationMs: fact.durationMs },
          correlation: { flow, run: r.runId, step: SESSION_STEP, task: t.taskId, attempt: ref.attempt },
        }).toEnvelope();
        events.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
        // The CLI retries a recoverable API error itself: counted as handled (retrying), like the engine's retried attempts.
        events.push({ type: 'errorOccurred', ts, error, caught: false, retrying: error.recoverable, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
        events.push({ type: 'attemptFailed', ts, ...ref, durationMs: fact.durationMs, error });
        break;
      }
      case 'toolFailed': {
        const t = this.taskFor(fact.promptId, ts);
        const error = toolFailureError(session.agent, fact.tool, fact.message, {
          timestamp: ts, context,
          correlation: { flow, run: r.runId, step: SESSION_STEP, task: t.taskId, attempt: r.openTaskAttempts || null },
        }).toEnvelope();
        // The agent sees the tool's failure and goes on: it handles it (caught), the session does not fail.
        events.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
        break;
      }
      case 'other':
        events.push({ type: 'externalEvent', ts, name: name || '(unnamed)', known: fact.known, taskId: r.openTask, attributes: keptAttributes(record.attributes, options.storePrompts) });
        break;
    }
  }
}

/** The events that end a quiet session: its open task succeeds, then the run goes idle. */
export function planIdle(row: ExternalSessionRow, quietMs: number, now: number): { events: PlannedEvent[]; row: ExternalSessionRow } {
  const events: PlannedEvent[] = [];
  if (row.openTask !== null) {
    events.push({ type: 'taskSucceeded', ts: now, step: SESSION_STEP, ordinal: row.taskCount - 1, taskId: row.openTask, attempts: row.openTaskAttempts, output: '' });
  }
  events.push({ type: 'externalRunIdle', ts: now, quietMs, lastEventAt: row.lastEventAt });
  return { events, row: { ...row, idle: true, openTask: null, openTaskAttempts: 0 } };
}
