import { externalRunId } from './session-run-id.js';
import type { ExternalSessionRow } from '../../store/queries/external.js';
import { ADJUSTED_EVENT, saneTime, type Adjustment } from '../receive/bounds.js';
import { correlationKeysOf } from '../correlation-keys.js';
import { SESSION_STEP, type PlannedEvent } from './session-journal.js';
import { SessionFacts, type FactOptions } from './session-facts.js';
import { sessionName, subagentName } from './session-name.js';
import { journalIncident } from './session-incidents.js';
import { approvalSignalOf } from '../approval/approval-facts.js';
import { journalApproval } from '../approval/session-approval.js';
import { liftLimit, liftsLimit } from './session-limit.js';
import type { TelemetryRecord } from '../receive/decode.js';
import { genAiFactOf } from '../genai/fact.js';
import { telemetryUsage, usageFollows } from '../usage-mapping.js';
import { eventName, EXTERNAL_FLOW_PREFIX, factOf, sessionKeyOf, type Fact, type SessionRef } from '../mapping.js';

/**
 * The journal events of one session's records (pure, given the session's bookkeeping): the run
 * starts at the session's first record with one step that holds every prompt task; a prompt
 * starts a task (ending the previous one with its outcome); each API request the CLI reports,
 * and each try it made again, is an attempt of the open task; an API error or a failed tool is
 * an `errorOccurred`; everything else an `externalEvent` (docs/otel.md "Mapping").
 */

export { planIdle, type PlannedEvent } from './session-journal.js';

export interface PlanOptions extends FactOptions {
  /** Wall-clock ms the payload arrived (the time of records that carry none). */
  receivedAt: number;
}

export function newSessionRow(session: SessionRef, at: number): ExternalSessionRow {
  return {
    sessionKey: sessionKeyOf(session),
    runId: externalRunId(session),
    origin: session.origin,
    sessionId: session.sessionId,
    parent: session.parent,
    lastEventAt: at,
    idle: false,
    openTask: null,
    openTaskAttempts: 0,
    taskCount: 0,
    promptState: null,
    lastSeq: 0,
  };
}

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
  records.forEach((record, i) => plan.add(record, usageFollows(records, i)));
  return { events: plan.events, row: plan.finish() };
}

/** One payload's events of one session, and the session's bookkeeping as they leave it. */
class SessionPlan extends SessionFacts {
  constructor(
    session: SessionRef,
    row: ExternalSessionRow,
    private readonly options: PlanOptions,
  ) {
    super(session, row, options);
  }

  /** A record's time: its own when sane, else the payload's arrival (bounds.ts). */
  timeOf(record: TelemetryRecord): { ts: number; adjustment: Adjustment | null } {
    return saneTime(record.timeMs, record.timeGiven, record.timeField, this.options.receivedAt);
  }

  /** A new session's run and step, or the reopening of an idle one. */
  begin(startTs: number): void {
    const { session, row: r } = this;
    if (r.lastSeq === 0) {
      this.push({
        type: 'runStarted',
        ts: startTs,
        flow: `${EXTERNAL_FLOW_PREFIX}${session.agent}`,
        flowName: session.spawnedBy ? subagentName(session.agent, session.spawnedBy) : sessionName(session.agent, session.sessionId, session.service ?? null),
        options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: session.agent },
        resumedFrom: null,
        retryOf: null,
        resumeStep: 0,
        external: {
          origin: session.origin,
          sessionId: session.sessionId,
          source: session.source,
          ...(session.parent ? { parent: session.parent } : {}),
          ...(session.spawnedBy ? { spawnedBy: session.spawnedBy } : {}),
        },
      });
      this.push({ type: 'stepStarted', ts: startTs, step: SESSION_STEP, frontier: [] });
      // The session's own values (its id, its service's name) are noted once, when its run starts.
      this.noteAdjusted(startTs, 'session', session.adjustments);
    } else {
      if (r.idle) this.push({ type: 'externalRunReopened', ts: startTs, idleSince: r.lastEventAt });
      // The run started before the record that names its parent came (subagents.ts): linked now.
      if (session.linksLate && session.spawnedBy)
        this.push({ type: 'externalRunSpawned', ts: startTs, spawnedBy: session.spawnedBy, flowName: subagentName(session.agent, session.spawnedBy) });
    }
    r.idle = false;
  }

  /** Values the receiver did not take as sent, journaled just before the events they belong to. */
  private noteAdjusted(ts: number, event: string, adjustments: readonly Adjustment[]): void {
    if (adjustments.length === 0) return;
    this.push({
      type: 'externalEvent',
      ts,
      name: ADJUSTED_EVENT,
      known: true,
      taskId: this.row.openTask,
      attributes: { event, adjustments: [...adjustments] },
    });
  }

  /** One record's events. `endsLater`: a record after it ends the same stream with its usage (usage-mapping.ts). */
  add(record: TelemetryRecord, endsLater = false): void {
    const { row: r, options } = this;
    const { ts, adjustment } = this.timeOf(record);
    r.lastEventAt = Math.max(r.lastEventAt, options.receivedAt);
    const fact: Fact = record.span ? genAiFactOf(record) : factOf(record);
    this.taskName = fact.taskName;
    const usage = fact.usage ?? telemetryUsage(record) ?? undefined;
    const name = eventName(record);
    if ((this.state.limit ?? null) !== null && liftsLimit(this, ts, name, this.repeatsStreamFailure(fact))) liftLimit(this, ts);
    const adjustments = adjustment ? [adjustment, ...fact.adjustments] : fact.adjustments;
    this.noteAdjusted(ts, name || '(unnamed)', adjustments);
    journalApproval(this, approvalSignalOf(name, record, ts), fact, ts, name || '(unnamed)');
    const context = {
      session: this.session.sessionId,
      prompt: fact.promptId,
      event: name,
      ...correlationKeysOf(record),
      ...(this.session.parent ? { hivewatch: this.session.parent } : {}),
      ...(adjustments.length > 0 ? { adjustments } : {}),
    };
    const kept = (known: boolean, reason?: string): number => {
      const attributes = this.keptOf(record);
      return this.push({
        type: 'externalEvent',
        ts,
        name: name || '(unnamed)',
        known,
        taskId: r.openTask,
        attributes: reason ? { ...attributes, 'hivewatch.reason': reason } : attributes,
      });
    };
    switch (fact.kind) {
      case 'prompt':
        // A prompt event that arrives after its own API events (exporters batch independently) joins their task.
        if (fact.promptId === null || !this.belongs(fact.promptId)) this.openTask(fact.promptId, ts);
        this.awaiting(ts);
        this.push({ type: 'externalEvent', ts, name, known: true, taskId: r.openTask, attributes: this.keptOf(record) });
        break;
      case 'apiRequest': {
        this.taskFor(fact.promptId, ts);
        const ref = this.nextAttempt();
        this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
        this.succeeded(ref, ts, fact.durationMs, usage);
        break;
      }
      case 'requestOpened': {
        this.taskFor(fact.promptId, ts);
        const ref = this.nextAttempt();
        this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
        this.state.open = { attempt: ref.attempt, since: ts - fact.durationMs };
        break;
      }
      case 'streamCompleted':
      case 'responded': {
        const open = endsLater ? null : (this.state.open?.attempt ?? null);
        if (open !== null && this.belongs(fact.promptId)) this.succeeded(this.openAttemptRef(open), ts, 0, usage);
        else if (this.belongs(fact.promptId)) this.state.outcome = this.state.outcome ?? 'succeeded';
        kept(true);
        break;
      }
      case 'apiError':
        this.apiError(fact, ts, context, record, usage);
        break;
      case 'retriedTry':
        this.retriedTry(fact, ts, context);
        kept(true);
        break;
      case 'toolFailed':
        this.tool(fact, ts, context);
        break;
      case 'toolSucceeded':
        this.tool(fact, ts, context);
        kept(true);
        break;
      case 'toolRefused':
        // Kept as sent too: a linked session's refusal is its attempt's failure, which the preset reports.
        if (!this.refused(fact, ts, context, name.endsWith('.tool_decision') ? () => kept(true) : null)) kept(true);
        break;
      case 'toolCall':
        this.toolCall(fact, ts, context);
        break;
      case 'agentEnded':
        this.agentEnded(fact, ts, context);
        kept(true);
        break;
      case 'incident':
        journalIncident(this, fact.incident, ts, context, this.session.agent);
        break;
      case 'other':
        kept(fact.known, fact.reason);
        break;
    }
  }
}
