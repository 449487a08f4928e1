import type { TokenUsage } from '../../base/usage.js';
import type { ExternalSessionRow } from '../../store/queries/external.js';
import { apiFailureError, toolFailureError, toolRefusedError } from '../classify.js';
import { keptAttributes, senderOf } from '../content/kept.js';
import { own, type TelemetryRecord } from '../receive/decode.js';
import { eventName, EXTERNAL_FLOW_PREFIX, str, type Fact, type SessionRef } from '../mapping.js';
import { stopAtUsageLimit } from './session-limit.js';
import { SESSION_STEP, SessionJournal } from './session-journal.js';

/**
 * How each fact of a session's records becomes journal events (session-events.ts reads the
 * records and hands each fact here): the task it belongs to (a prompt's, opened when first seen),
 * the attempt it starts or ends, and the error it is, classified by the one classifier.
 */

/** What the planner was told about the operator's choices (setting `otel.store_prompts`). */
export interface FactOptions {
  /** The operator allows prompt text in the journal. */
  storePrompts: boolean;
}

/** Task ids are numbered (a prompt id seen again after another prompt starts a new task, never an old one's). */
const promptTaskId = (promptId: string | null, n: number): string => (promptId !== null ? `prompt-${n}-${promptId}` : `prompt-${n}`);

export abstract class SessionFacts extends SessionJournal {
  constructor(
    protected readonly session: SessionRef,
    row: ExternalSessionRow,
    private readonly factOptions: FactOptions,
  ) {
    super(row);
  }

  /** A record's attributes as the journal keeps them: its schemes' allow-list (content/kept.ts). */
  protected keptOf(record: TelemetryRecord): Record<string, unknown> {
    const sender = senderOf(eventName(record), str(own(record.resource, 'service.name')) ?? '');
    return keptAttributes(record.attributes, sender, this.factOptions.storePrompts);
  }

  /** Whether a record of `promptId` belongs to the open task (adopting the id when the task was opened without one). */
  protected belongs(promptId: string | null): boolean {
    const r = this.row;
    if (r.openTask === null) return false;
    if (promptId === null || r.openTask === promptTaskId(promptId, r.taskCount) || this.state.promptId === promptId) return true;
    if (!this.state.anonymous) return false;
    this.state.anonymous = false;
    this.state.promptId = promptId;
    return true;
  }

  /** The name the next task opened gets (a GenAI span's agent or trace; default `prompt n`). */
  protected taskName: string | undefined;

  protected openTask(promptId: string | null, ts: number): void {
    const r = this.row;
    this.closeOpenTask(ts);
    r.taskCount += 1;
    r.openTask = promptTaskId(promptId, r.taskCount);
    this.state = { promptId, anonymous: promptId === null, open: null, outcome: null, failure: null, approval: this.state.approval ?? null };
    this.push({
      type: 'taskStarted',
      ts,
      step: SESSION_STEP,
      ordinal: r.taskCount - 1,
      taskId: r.openTask,
      name: this.taskName ?? `prompt ${r.taskCount}`,
      agent: this.session.agent,
      maxAttempts: 0,
    });
  }

  /** The task an API or tool event belongs to: its prompt's (a new task when that prompt was not seen). */
  protected taskFor(promptId: string | null, ts: number): { taskId: string; ordinal: number } {
    if (!this.belongs(promptId)) this.openTask(promptId, ts);
    return { taskId: this.row.openTask as string, ordinal: this.row.taskCount - 1 };
  }

  /** A request was sent that nothing answered yet (a prompt, a tool's result the agent sends on). */
  protected awaiting(ts: number): void {
    if (this.state.open === null) this.state.open = { attempt: null, since: ts };
  }

  protected apiError(
    fact: Extract<Fact, { kind: 'apiError' }>,
    ts: number,
    context: Record<string, unknown>,
    record: TelemetryRecord,
    usage?: TokenUsage,
  ): void {
    const open = this.state.open?.attempt ?? null;
    if (this.repeatsStreamFailure(fact)) {
      this.push({ type: 'externalEvent', ts, name: eventName(record), known: true, taskId: this.row.openTask, attributes: this.keptOf(record) });
      return;
    }
    this.taskFor(fact.promptId, ts);
    const ref = open !== null ? this.openAttemptRef(open) : this.nextAttempt();
    if (open === null) this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
    const error = apiFailureError({
      runtime: this.session.agent,
      status: fact.status,
      message: fact.message,
      timestamp: ts,
      context: { ...context, model: fact.model, reportedAttempt: fact.reportedAttempt, durationMs: fact.durationMs },
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`, run: this.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    }).toEnvelope();
    // The CLI reports a request's error once it stopped trying it (Claude Code after its retries, Codex per
    // request): not a retry in progress. It is the prompt's failure until something succeeds after it.
    this.failed(ref, ts, fact.durationMs, error, false, usage);
    stopAtUsageLimit(this, ref, ts, error);
  }

  /** A stream's later error event that repeats its failure (Codex sends two): kept, not counted again. */
  protected repeatsStreamFailure(fact: Fact): boolean {
    return fact.kind === 'apiError' && fact.stream && this.state.open === null && this.state.outcome === 'failed' && this.belongs(fact.promptId);
  }

  /** A GenAI tool call: an attempt; its failure is the agent's to handle (caught), the task's until something succeeds after it. */
  protected toolCall(fact: Extract<Fact, { kind: 'toolCall' }>, ts: number, context: Record<string, unknown>): void {
    this.taskFor(fact.promptId, ts);
    const ref = this.nextAttempt();
    this.push({ type: 'attemptStarted', ts: ts - fact.durationMs, ...ref });
    if (fact.failure === null) {
      this.succeeded(ref, ts, fact.durationMs);
      return;
    }
    const error = toolFailureError(this.session.agent, fact.tool, fact.failure, {
      timestamp: ts,
      context,
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
  protected agentEnded(fact: Extract<Fact, { kind: 'agentEnded' }>, ts: number, context: Record<string, unknown>): void {
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
      runtime: this.session.agent,
      status: fact.failure.status,
      message: fact.failure.message,
      timestamp: ts,
      context,
      correlation: {
        flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`,
        run: this.row.runId,
        step: SESSION_STEP,
        task: t.taskId,
        attempt: this.row.openTaskAttempts || null,
      },
    }).toEnvelope();
    const seq = this.push({ type: 'errorOccurred', ts, error, caught: false, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
    this.state.outcome = 'failed';
    this.state.failure = { seq, error };
  }

  /** A try the CLI made again: a failed attempt, handled at once (the CLI retried it). */
  protected retriedTry(fact: Extract<Fact, { kind: 'retriedTry' }>, ts: number, context: Record<string, unknown>): void {
    // A span event names no prompt, and Claude Code exports a run's traces before its logs: a try that comes
    // when the open prompt's request already ended belongs to the next prompt, whose id its prompt event
    // brings later (an anonymous task adopts it).
    if (fact.promptId === null && this.row.openTask !== null && this.state.open === null && this.state.outcome !== null) this.openTask(null, ts);
    this.taskFor(fact.promptId, ts);
    const ref = this.nextAttempt();
    const why = fact.message ?? `${this.session.agent} retried the request (try ${fact.tryNumber} of ${fact.tries}); its telemetry does not say why`;
    const error = apiFailureError({
      runtime: this.session.agent,
      status: fact.status,
      message: why,
      timestamp: ts,
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
  protected refused(fact: Extract<Fact, { kind: 'toolRefused' }>, ts: number, context: Record<string, unknown>, decision: (() => number) | null): boolean {
    const t = this.taskFor(fact.promptId, ts);
    // A hook that blocked the call was reported just before (Claude Code sends both): that is the one error.
    if (this.linked || (fact.source === 'hook' && this.state.refused?.error.code === 'AGENT_HOOK_BLOCKED')) return false;
    // The decision is journaled as sent (who decided: its `source`), and the refusal's error points at it.
    const decisionSeq = decision === null ? null : decision();
    const error = toolRefusedError(
      this.session.agent,
      { tool: fact.tool, detail: fact.detail, toolUseId: fact.toolUseId },
      {
        timestamp: ts,
        context: { ...context, ...(fact.source === null ? {} : { source: fact.source }), ...(decisionSeq === null ? {} : { decisionSeq }) },
        correlation: {
          flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`,
          run: this.row.runId,
          step: SESSION_STEP,
          task: t.taskId,
          attempt: this.row.openTaskAttempts || null,
        },
      },
    ).toEnvelope();
    const seq = this.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal: t.ordinal, taskId: t.taskId });
    this.state.outcome = 'failed';
    this.state.failure = { seq, error };
    this.state.refused = { seq, error };
    // The agent is told of the refusal and goes on: a request is in flight again.
    this.awaiting(ts);
    return true;
  }

  protected tool(fact: Extract<Fact, { kind: 'toolFailed' | 'toolSucceeded' }>, ts: number, context: Record<string, unknown>): void {
    const t = this.taskFor(fact.promptId, ts);
    if (fact.kind === 'toolFailed') {
      const error = toolFailureError(this.session.agent, fact.tool, fact.message, {
        timestamp: ts,
        context,
        correlation: {
          flow: `${EXTERNAL_FLOW_PREFIX}${this.session.agent}`,
          run: this.row.runId,
          step: SESSION_STEP,
          task: t.taskId,
          attempt: this.row.openTaskAttempts || null,
        },
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
