import type { ErrorCategory, ErrorCode } from './taxonomy.js';

/** Where a failure happened, from the widest scope to the narrowest. Absent levels are null. */
export interface Correlation {
  project: string | null;
  flow: string | null;
  run: string | null;
  step: number | null;
  task: string | null;
  attempt: number | null;
}

/** The structured error every failure becomes (rule 1). Plain JSON, safe to journal. */
export interface ErrorEnvelope {
  category: ErrorCategory;
  code: ErrorCode;
  message: string;
  origin: string;
  recoverable: boolean;
  recovery_hint: string | null;
  context: Record<string, unknown>;
  timestamp: number;
  correlation: Correlation;
  /**
   * The error that led to this one (rule 16), itself an envelope with its own task and
   * attempt: the last attempt's error under POLICY_RETRY_LIMIT_EXCEEDED, the caught error under a
   * `throw "message"` in a catch, the pending error under a failing `finally`. Absent on a root
   * cause and in journals older than the field (which kept it in `context.lastError` /
   * `context.cause`: read it with `causeOf`).
   */
  cause?: ErrorEnvelope;
}

/** How deep a cause chain read from the wire or a journal may nest (and how far a chain is followed). */
export const MAX_CAUSE_DEPTH = 32;

/** The envelope's cause, also from journals written before `cause` existed. */
export function causeOf(envelope: ErrorEnvelope): ErrorEnvelope | null {
  if (envelope.cause !== undefined) return envelope.cause;
  const legacy = envelope.context.lastError ?? envelope.context.cause;
  return typeof legacy === 'object' && legacy !== null && !Array.isArray(legacy) && typeof (legacy as { code?: unknown }).code === 'string'
    ? (legacy as ErrorEnvelope)
    : null;
}

export const EMPTY_CORRELATION: Correlation = Object.freeze({
  project: null,
  flow: null,
  run: null,
  step: null,
  task: null,
  attempt: null,
});
