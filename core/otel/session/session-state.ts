import type { ErrorEnvelope } from '../../base/errors/envelope.js';

/**
 * What an external session's open prompt has come to, kept between payloads (the
 * `prompt_state` JSON of its `external_runs` row, migration 12): the request in flight, the
 * prompt's last outcome, and the failure that gave it. The quiet period reads it to end the
 * session with the status its last prompt had (docs/otel.md "Sessions").
 */
export interface PromptState {
  /**
   * The prompt id a task opened without one took on: Claude Code exports its traces (no prompt
   * id) apart from its logs, and either may arrive first.
   */
  promptId: string | null;
  /** The open task was opened by a record without a prompt id, and has not taken one on yet. */
  anonymous: boolean;
  /**
   * A request in flight: sent (a prompt or a tool result was reported, nothing answered it yet;
   * `attempt` null) or answered with its stream still open (`attempt` journaled as started).
   */
  open: { attempt: number | null; since: number } | null;
  /** The prompt's last outcome so far (null: nothing ended yet). */
  outcome: 'succeeded' | 'failed' | null;
  /** The failure that made the outcome `failed`: its occurrence's seq and envelope. */
  failure: { seq: number; error: ErrorEnvelope } | null;
  /**
   * A tool call of the prompt the CLI's permissions refused: the prompt ends failed with it even
   * when requests after it succeeded (a refusal is not the work asked for, as a preset reads it).
   */
  refused?: { seq: number; error: ErrorEnvelope } | null;
  /**
   * The session is stopped by a usage limit (`externalLimitReached`, session-limit.ts): the
   * task and attempt it stopped, when (`at`, the failure's time) and until when the CLI said.
   */
  limit?: SessionLimit | null;
  /** The session's permission prompts: the one open now, the last wait journaled (session-approval.ts). */
  approval?: ApprovalState | null;
}

/** A session's permission prompts (session-approval.ts journals them). */
export interface ApprovalState {
  /** The prompt open now. */
  pending: { tool: string; label: string; since: number } | null;
  /** The last wait journaled (a later report of it is not counted again). */
  lastWait: { since: number; end: number } | null;
  /** The latest time of the session's other records (where a person's decision's wait began). */
  seenAt: number | null;
}

interface SessionLimit {
  taskId: string;
  ordinal: number;
  at: number;
  resetAt: number;
}

function readLimit(value: unknown): SessionLimit | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<SessionLimit>;
  const numbers = typeof v.at === 'number' && typeof v.resetAt === 'number' && typeof v.ordinal === 'number';
  return numbers && typeof v.taskId === 'string' ? { taskId: v.taskId, ordinal: v.ordinal as number, at: v.at as number, resetAt: v.resetAt as number } : null;
}

const EMPTY_PROMPT_STATE: PromptState = Object.freeze({ promptId: null, anonymous: false, open: null, outcome: null, failure: null });

/** The state a row holds (an unreadable or absent one is empty: nothing known, as before migration 12). */
export function readPromptState(text: string | null | undefined): PromptState {
  if (!text) return { ...EMPTY_PROMPT_STATE };
  try {
    const value = JSON.parse(text) as Partial<PromptState>;
    return {
      promptId: typeof value.promptId === 'string' ? value.promptId : null,
      anonymous: value.anonymous === true,
      open:
        value.open && typeof value.open.since === 'number'
          ? { attempt: typeof value.open.attempt === 'number' ? value.open.attempt : null, since: value.open.since }
          : null,
      outcome: value.outcome === 'succeeded' || value.outcome === 'failed' ? value.outcome : null,
      failure: value.failure && typeof value.failure.seq === 'number' && typeof value.failure.error === 'object' ? value.failure : null,
      refused: value.refused && typeof value.refused.seq === 'number' && typeof value.refused.error === 'object' ? value.refused : null,
      limit: readLimit(value.limit),
      approval: readApproval(value.approval),
    };
  } catch {
    return { ...EMPTY_PROMPT_STATE };
  }
}

/** The row's text of a state (null for the empty state, so untouched rows stay as they were). */
export function writePromptState(state: PromptState): string | null {
  const empty =
    state.promptId === null &&
    !state.anonymous &&
    state.open === null &&
    state.outcome === null &&
    state.failure === null &&
    (state.refused ?? null) === null &&
    (state.limit ?? null) === null &&
    isEmptyApproval(state.approval);
  return empty ? null : JSON.stringify(state);
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function readApproval(value: unknown): ApprovalState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<Record<keyof ApprovalState, Record<string, unknown> | number | null>>;
  const p = typeof v.pending === 'object' && v.pending !== null ? v.pending : null;
  const w = typeof v.lastWait === 'object' && v.lastWait !== null ? v.lastWait : null;
  return {
    pending: p && typeof p.tool === 'string' && typeof p.label === 'string' && isNumber(p.since) ? { tool: p.tool, label: p.label, since: p.since } : null,
    lastWait: w && isNumber(w.since) && isNumber(w.end) ? { since: w.since, end: w.end } : null,
    seenAt: isNumber(v.seenAt) ? v.seenAt : null,
  };
}

const isEmptyApproval = (a: ApprovalState | null | undefined): boolean => !a || (a.pending === null && a.lastWait === null && a.seenAt === null);
