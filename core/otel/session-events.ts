import { externalRunId } from './session-run-id.js';
import type { SpawnedBy } from '../base/events.js';
import type { ExternalSessionRow } from '../store/external.js';
import { ADJUSTED_EVENT, saneTime, type Adjustment } from './bounds.js';
import { correlationKeysOf } from './correlation-keys.js';
import { apiFailureError, toolFailureError, toolRefusedError } from './classify.js';
import { SESSION_STEP, SessionJournal, type PlannedEvent } from './session-journal.js';
import { journalIncident } from './session-incidents.js';
import { approvalSignalOf } from './approval-facts.js';
import { journalApproval } from './session-approval.js';
import { liftLimit, liftsLimit, stopAtUsageLimit } from './session-limit.js';
import type { TelemetryRecord } from './decode.js';
import { genAiFactOf } from './genai/fact.js';
import type { TokenUsage } from '../base/usage.js';
import { telemetryUsage, usageFollows } from './usage-mapping.js';
import { keptAttributes, senderOf } from './content/kept.js';
import { own } from './decode.js';
import { eventName, EXTERNAL_FLOW_PREFIX, factOf, sessionKeyOf, str, type Fact, type SessionRef } from './mapping.js';

/**
 * The journal events of one session's records (pure, given the session's bookkeeping): the run
 * starts at the session's first record with one step that holds every prompt task; a prompt
 * starts a task (ending the previous one with its outcome); each API request the CLI reports,
 * and each try it made again, is an attempt of the open task; an API error or a failed tool is
 * an `errorOccurred`; everything else an `externalEvent` (docs/otel.md "Mapping").
 */

export { planIdle,  type PlannedEvent } from './session-journal.js';

export interface PlanOptions {
  /** The operator allows prompt text in the journal (setting `otel.store_prompts`). */
  storePrompts: boolean;
  /** Wall-clock ms the payload arrived (the time of records that carry none). */
  receivedAt: number;
}


const LABEL: Record<string, string> = { 'claude-code': 'Claude Code', 'codex-cli': 'Codex CLI' };
/** The Claude Code desktop app's Code tab reports as `claude-code-desktop`: the same events, its own name. */
const DESKTOP_SERVICE = 'claude-code-desktop';

/** A UUID whose leading digits are a timestamp (versions 1, 6, 7): Codex's conversation ids are version 7. */
const TIME_ORDERED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[167][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The session's name in the Runs list: the CLI's label and the start of its session id, which
 * the CLI shows too ("Claude Code session 7f3c9a2e"). A time-ordered id's start is its clock —
 * sessions started within a minute share it — so it is followed by the id's last eight digits,
 * which are random: "Codex CLI session 01a2242e…3f421be2".
 */
export function sessionName(agent: string, sessionId: string, service: string | null = null): string {
  const label = agent === 'claude-code' && service === DESKTOP_SERVICE ? 'Claude Code desktop' : (LABEL[agent] ?? agent);
  const short = TIME_ORDERED_UUID.test(sessionId) ? `${sessionId.slice(0, 8)}…${sessionId.slice(-8)}` : sessionId.slice(0, 8);
  return `${label} session ${short}`;
}

/**
 * A subagent's name in the Runs list: its kind first (what a narrow column keeps) and the start of
 * its id ("general-purpose subagent afbf5f61"); the CLI's label when the kind is not named.
 */
function subagentName(agent: string, spawnedBy: SpawnedBy): string {
  return `${spawnedBy.agentName ?? LABEL[agent] ?? agent} subagent ${spawnedBy.agentId.slice(0, 8)}`;
}

export function newSessionRow(session: SessionRef, at: number): ExternalSessionRow {
  return {
    sessionKey: sessionKeyOf(session), runId: externalRunId(session), origin: session.origin, sessionId: session.sessionId,
    parent: session.parent, lastEventAt: at, idle: false, openTask: null, openTaskAttempts: 0, taskCount: 0, promptState: null, lastSeq: 0,
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
  records.forEach((record, i) => plan.add(record, usageFollows(records, i)));
  return { events: plan.events, row: plan.finish() };
}

/** One payload's events of one session, and the session's bookkeeping as they leave it. */
class SessionPlan extends SessionJournal {
  constructor(
    private readonly session: SessionRef,
    row: ExternalSessionRow,
    private readonly options: PlanOptions,
  ) {
    super(row);
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
        type: 'runStarted', ts: startTs,
        flow: `${EXTERNAL_FLOW_PREFIX}${session.agent}`,
        flowName: session.spawnedBy ? subagentName(session.agent, session.spawnedBy) : sessionName(session.agent, session.sessionId, session.service ?? null),
        options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: session.agent },
        resumedFrom: null, retryOf: null, resumeStep: 0,
        external: {
          origin: session.origin, sessionId: session.sessionId, source: session.source,
          ...(session.parent ? { parent: session.parent } : {}),
          ...(session.spawnedBy ? { spawnedBy: session.spawnedBy } : {}),
        },
      });
      this.push({ type: 'stepStarted', ts: startTs, step: SESSION_STEP, frontier: [] });
      // The session's own values (its id, its service's name) are noted once, when its run starts.
      this.noteAdjusted(startTs, 'session', session.adjustments);
    } else if (r.idle) {
      this.push({ type: 'externalRunReopened', ts: startTs, idleSince: r.lastEventAt });
    }
    r.idle = false;
  }

  /** A record's attributes as the journal keeps them: its schemes' allow-list (content/kept.ts). */
  private keptOf(record: TelemetryRecord): Record<string, unknown> {
    const sender = senderOf(eventName(record), str(own(record.resource, 'service.name')) ?? '');
    return keptAttributes(record.attributes, sender, this.options.storePrompts);
  }

  /** Values the receiver did not take as sent, journaled just before the events they belong to. */
  private noteAdjusted(ts: number, event: string, adjustments: readonly Adjustment[]): void {
    if (adjustments.length === 0) return;
    this.push({ type: 'externalEvent', ts, name: ADJUSTED_EVENT, known: true, taskId: this.row.openTask, attributes: { event, adjustments: [...adjustments] } });
  }

  /** Whether a record of `promptId` belongs to the open task (adopting the id when the task was opened without one). */
  private belongs(promptId: string | null): boolean {
    const r = this.row;
    if (r.openTask === null) return false;
    if (promptId === null || r.openTask === promptTaskId(promptId, r.taskCount) || this.state.promptId === promptId) return true;
    if (!this.state.anonymous) return false;
    this.state.anonymous = false;
    this.state.promptId = promptId;
    return true;
  }

  /** The name the next task opened gets (a GenAI span's agent or trace; default `prompt n`). */
  private taskName: string | undefined;

  private openTask(promptId: string | null, ts: number): void {
    const r = this.row;
    this.closeOpenTask(ts);
    r.taskCount += 1;
    r.openTask = promptTaskId(promptId, r.taskCount);
    this.state = { promptId, anonymous: promptId === null, open: null, outcome: null, failure: null, approval: this.state.approval ?? null };
    this.push({
      type: 'taskStarted', ts, step: SESSION_STEP, ordinal: r.taskCount - 1, taskId: r.openTask,
      name: this.taskName ?? `prompt ${r.taskCount}`, agent: this.session.agent, maxAttempts: 0,
    });
  }

  /** The task an API or tool event belongs to: its prompt's (a new task when that prompt was not seen). */
  private taskFor(promptId: string | null, ts: number): { taskId: string; ordinal: number } {
    if (!this.belongs(promptId)) this.openTask(promptId, ts);
    return { taskId: this.row.openTask as string, ordinal: this.row.taskCount - 1 };
  }

  /** A request was sent that nothing answered yet (a prompt, a tool's result the agent sends on). */
  private awaiting(ts: number): void {
    if (this.state.open === null) this.state.open = { attempt: null, since: ts };
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
      session: this.session.sessionId, prompt: fact.promptId, event: name, ...correlationKeysOf(record),
      ...(this.session.parent ? { hivewatch: this.session.parent } : {}),
      ...(adjustments.length > 0 ? { adjustments } : {}),
    };
    const kept = (known: boolean, reason?: string): number => {
      const attributes = this.keptOf(record);
      return this.push({ type: 'externalEvent', ts, name: name || '(unnamed)', known, taskId: r.openTask, attributes: reason ? { ...attributes, 'hivewatch.reason': reason } : attributes });
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

  private apiError(fact: Extract<Fact, { kind: 'apiError' }>, ts: number, context: Record<string, unknown>, record: TelemetryRecord, usage?: TokenUsage): void {
    const open = this.state.open?.attempt ?? null;
    if (this.repeatsStreamFailure(fact)) {
      this.push({ type: 'externalEvent', ts, name: eventName(record), known: true, taskId: this.row.openTask, attributes: this.keptOf(record) });
      return;
    }
    this.taskFor(fact.promptId, ts);
    const ref = open !== null ? this.openAttemptRef(open) : this.nextAttempt();
    if (open === null) this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
    const error = apiFailureError({
      runtime: this.session.agent, status: fact.status, message: fact.message, timestamp: ts,
      context: { ...context, model: fact.model, reportedAttempt: fact.reportedAttempt, durationMs: fact.durationMs },
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    }).toEnvelope();
    // The CLI reports a request's error once it stopped trying it (Claude Code after its retries, Codex per
    // request): not a retry in progress. It is the prompt's failure until something succeeds after it.
    this.failed(ref, ts, fact.durationMs, error, false, usage);
    stopAtUsageLimit(this, ref, ts, error);
  }

  /** A stream's later error event that repeats its failure (Codex sends two): kept, not counted again. */
  private repeatsStreamFailure(fact: Fact): boolean {
    return fact.kind === 'apiError' && fact.stream && this.state.open === null && this.state.outcome === 'failed' && this.belongs(fact.promptId);
  }

  /** A GenAI tool call: an attempt; its failure is the agent's to handle (caught), the task's until something succeeds after it. */
  private toolCall(fact: Extract<Fact, { kind: 'toolCall' }>, ts: number, context: Record<string, unknown>): void {
    this.taskFor(fact.promptId, ts);
    const ref = this.nextAttempt();
    this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
    if (fact.failure === null) {
      this.succeeded(ref, ts, fact.durationMs);
      return;
    }
    const error = toolFailureError(this.session.agent, fact.tool, fact.failure, {
      timestamp: ts, context,
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    }).toEnvelope();
    const seq = this.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal: ref.ordinal, taskId: ref.taskId });
    this.push({ type: 'attemptFailed', ts, ...ref, durationMs: fact.durationMs, error });
    this.state.outcome = 'failed';
    this.state.failure = { seq, error };
  }

  /**
   * A GenAI `invoke_agent` span (or an SDK's call around its model calls) ended: its verdict on its
   * task. OK clears a failure it recovered from; UNSET (the default, and what instrumentation
   * leaves on success) changes nothing; an error after calls that went well is the task's own
   * (classified), and after a failed call it repeats that call's failure, which stays the cause.
   */
  private agentEnded(fact: Extract<Fact, { kind: 'agentEnded' }>, ts: number, context: Record<string, unknown>): void {
    const t = this.taskFor(fact.promptId, ts);
    if (fact.failure === null) {
      if (fact.ok) {
        this.state.outcome = 'succeeded';
        this.state.failure = null;
      }
      return;
    }
    if (this.state.outcome === 'failed') return;
    const error = apiFailureError({
      runtime: this.session.agent, status: fact.failure.status, message: fact.failure.message, timestamp: ts, context,
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: t.taskId, attempt: this.row.openTaskAttempts || null },
    }).toEnvelope();
    const seq = this.push({ type: 'errorOccurred', ts, error, caught: false, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
    this.state.outcome = 'failed';
    this.state.failure = { seq, error };
  }

  /** A try the CLI made again: a failed attempt, handled at once (the CLI retried it). */
  private retriedTry(fact: Extract<Fact, { kind: 'retriedTry' }>, ts: number, context: Record<string, unknown>): void {
    // A span event names no prompt, and Claude Code exports a run's traces before its logs: a try that comes
    // when the open prompt's request already ended belongs to the next prompt, whose id its prompt event
    // brings later (an anonymous task adopts it).
    if (fact.promptId === null && this.row.openTask !== null && this.state.open === null && this.state.outcome !== null) this.openTask(null, ts);
    this.taskFor(fact.promptId, ts);
    const ref = this.nextAttempt();
    const why = fact.message ?? `${this.session.agent} retried the request (try ${fact.tryNumber} of ${fact.tries}); its telemetry does not say why`;
    const error = apiFailureError({
      runtime: this.session.agent, status: fact.status, message: why, timestamp: ts,
      context: { ...context, reportedAttempt: fact.tryNumber, tries: fact.tries },
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    }).toEnvelope();
    const open = this.state.open;
    this.push({ type: 'attemptStarted', ts, ...ref });
    this.failed(ref, ts, 0, error, true);
    this.state.open = open;
  }

  /**
   * A tool call the CLI's permissions refused: AGENT_SCOPE_VIOLATION (the one classifier's), an
   * occurrence the agent handles (it goes on), and its prompt's ending; `decision` journals the
   * decision that refused it first. A linked session adds none: its attempt's result reports the
   * same refusal (false: nothing journaled).
   */
  private refused(fact: Extract<Fact, { kind: 'toolRefused' }>, ts: number, context: Record<string, unknown>, decision: (() => number) | null): boolean {
    const t = this.taskFor(fact.promptId, ts);
    // A hook that blocked the call was reported just before (Claude Code sends both): that is the one error.
    if (this.linked || (fact.source === 'hook' && this.state.refused?.error.code === 'AGENT_HOOK_BLOCKED')) return false;
    // The decision is journaled as sent (who decided: its `source`), and the refusal's error points at it.
    const decisionSeq = decision === null ? null : decision();
    const error = toolRefusedError(this.session.agent, { tool: fact.tool, detail: fact.detail, toolUseId: fact.toolUseId }, {
      timestamp: ts, context: { ...context, ...(fact.source === null ? {} : { source: fact.source }), ...(decisionSeq === null ? {} : { decisionSeq }) },
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: t.taskId, attempt: this.row.openTaskAttempts || null },
    }).toEnvelope();
    const seq = this.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
    this.state.outcome = 'failed';
    this.state.failure = { seq, error };
    this.state.refused = { seq, error };
    // The agent is told of the refusal and goes on: a request is in flight again.
    this.awaiting(ts);
    return true;
  }

  private tool(fact: Extract<Fact, { kind: 'toolFailed' | 'toolSucceeded' }>, ts: number, context: Record<string, unknown>): void {
    const t = this.taskFor(fact.promptId, ts);
    if (fact.kind === 'toolFailed') {
      const error = toolFailureError(this.session.agent, fact.tool, fact.message, {
        timestamp: ts, context,
        correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: t.taskId, attempt: this.row.openTaskAttempts || null },
      }).toEnvelope();
      // The agent sees the tool's failure and goes on: it handles it (caught); the prompt fails only when nothing succeeds after it.
      const seq = this.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
      this.state.outcome = 'failed';
      this.state.failure = { seq, error };
    } else {
      this.state.outcome = 'succeeded';
      this.state.failure = null;
    }
    // The agent sends the tool's result on to the model: a request is in flight again.
    this.awaiting(ts);
  }
}
