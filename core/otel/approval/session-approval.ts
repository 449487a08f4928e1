import { APPROVAL_ENDED, APPROVAL_REQUESTED, isPersonSource } from '../../base/approval-wait.js';
import type { ApprovalSignal } from './approval-facts.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { Fact } from '../mapping.js';
import type { ApprovalState, PromptState } from '../session/session-state.js';

/**
 * A session's permission prompts as journal events (docs/otel.md "Waiting for approval"): a
 * prompt that opens journals APPROVAL_REQUESTED and the run waits for approval until a decision,
 * or anything the agent does after it (it could not have gone on without one), or the session's
 * end journals APPROVAL_ENDED with the time waited. A decision with no prompt seen open counts
 * as waiting on a person only when a person made it: from its span's start when the traces say,
 * else from the session's last record before it (the model's answer that asked for the tool).
 * One wait is counted once: a second report of it (the span after the log, or the log after the
 * span) falls inside the wait already journaled.
 */

/** How long a pending prompt keeps its session open past the quiet period: a person may be away for hours, not days. */
export const APPROVAL_HOLD_MS = 24 * 60 * 60 * 1000;
/** A decision reported this long after a journaled wait's end is still that wait (Claude Code's log and span differ by ms). */
const SAME_WAIT_MS = 1000;

/** The facts an agent reports only once a decision let it go on. */
const GOES_ON = new Set<Fact['kind']>(['prompt', 'apiRequest', 'requestOpened', 'apiError', 'toolFailed', 'toolSucceeded', 'toolCall', 'responded']);

/** What of a session's journal these read and write (session-journal.ts's SessionJournal). */
interface SessionJournal {
  state: PromptState;
  readonly row: { openTask: string | null };
  push(event: HivewatchEventBody & { ts: number }): number;
}

const noApproval = (): ApprovalState => ({ pending: null, lastWait: null, seenAt: null });

function ended(
  j: SessionJournal,
  at: number,
  fields: { tool: string; label: string; since: number; decision: string | null; source: string | null; via: string },
): void {
  const approval = j.state.approval as ApprovalState;
  const waitedMs = Math.max(0, at - fields.since);
  j.push({ type: 'externalEvent', ts: at, name: APPROVAL_ENDED, known: true, taskId: j.row.openTask, attributes: { ...fields, waitedMs, byPerson: true } });
  approval.pending = null;
  approval.lastWait = { since: fields.since, end: at };
}

/**
 * When what a fact reports began: a request's end record (Claude Code logs `api_request` as its
 * stream ends, after the tool call it carried may already be waiting) began `durationMs` earlier.
 * Only what began after a prompt opened shows the agent went on past it.
 */
function begunAt(fact: Fact, ts: number): number {
  return fact.kind === 'apiRequest' || fact.kind === 'requestOpened' || fact.kind === 'apiError' ? ts - Math.max(0, fact.durationMs) : ts;
}

const sameWait = (a: ApprovalState, since: number | null, at: number): boolean =>
  a.lastWait !== null && at >= a.lastWait.since && at <= a.lastWait.end + SAME_WAIT_MS && (since === null || since < a.lastWait.end);

/** Journals what `signal` (or, without one, the agent going on) means for the session's prompt. */
export function journalApproval(j: SessionJournal, signal: ApprovalSignal | null, fact: Fact, ts: number, via: string): void {
  const a = (j.state.approval ??= noApproval());
  if (signal === null) {
    if (a.pending !== null && GOES_ON.has(fact.kind) && begunAt(fact, ts) > a.pending.since) ended(j, ts, { ...a.pending, decision: null, source: null, via });
    if (GOES_ON.has(fact.kind)) a.seenAt = Math.max(a.seenAt ?? ts, ts);
    return;
  }
  if (signal.kind === 'opened') {
    if (a.pending !== null || sameWait(a, signal.since, signal.since)) return;
    a.pending = { tool: signal.tool, label: signal.label, since: signal.since };
    j.push({ type: 'externalEvent', ts: signal.since, name: APPROVAL_REQUESTED, known: true, taskId: j.row.openTask, attributes: { ...a.pending, via } });
    return;
  }
  const decided = { tool: signal.tool, decision: signal.decision, source: signal.source, via };
  if (a.pending !== null) {
    // The prompt's label names the tool as its opening said; the decision may name the command too.
    ended(j, Math.max(signal.at, a.pending.since), {
      ...decided,
      label: signal.label.length > a.pending.label.length ? signal.label : a.pending.label,
      since: a.pending.since,
    });
    return;
  }
  if (!isPersonSource(signal.source) || sameWait(a, signal.since, signal.at)) return;
  const since = signal.since ?? a.seenAt;
  if (since !== null && since <= signal.at) ended(j, signal.at, { ...decided, label: signal.label, since });
}

/** The session ends (quiet, cancelled, its attempt over) while a prompt is open: the wait ends with it. */
export function endPendingApproval(j: SessionJournal, now: number, via: string): void {
  const pending = j.state.approval?.pending ?? null;
  if (pending !== null) ended(j, Math.max(now, pending.since), { ...pending, decision: null, source: null, via });
}

/** Until when a session waiting for approval stays open (0 when none is pending). */
export function approvalHold(approval: ApprovalState | null | undefined): number {
  return approval?.pending ? approval.pending.since + APPROVAL_HOLD_MS : 0;
}
