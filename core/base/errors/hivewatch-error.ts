import { EMPTY_CORRELATION, MAX_CAUSE_DEPTH, type Correlation, type ErrorEnvelope } from './envelope.js';
import {
  ERROR_CATEGORIES,
  codeInfo,
  defaultOrigin,
  escalates,
  invariantProblem,
  isErrorCode,
  isValidOrigin,
  type ErrorCategory,
  type ErrorCode,
} from './taxonomy.js';

export interface HivewatchErrorInit {
  message: string;
  origin?: string;
  recoverable?: boolean;
  recoveryHint?: string | null;
  context?: Record<string, unknown>;
  timestamp?: number;
  correlation?: Partial<Correlation>;
  /** A foreign throwable this error wraps (JavaScript's `Error.cause`); never journaled. */
  cause?: unknown;
  /** The failure that led to this one (rule 16's cause chain); journaled as the envelope's `cause`. */
  causedBy?: HivewatchError | ErrorEnvelope | null;
}

/**
 * The one error class of the product. Its category and defaults come from its code, so a code
 * can never be raised under the wrong category.
 */
export class HivewatchError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly origin: string;
  readonly recoverable: boolean;
  readonly recoveryHint: string | null;
  readonly context: Record<string, unknown>;
  readonly timestamp: number;
  readonly correlation: Correlation;
  /** The failure that led to this one, as an envelope (rule 16); null for a root cause. */
  readonly causedBy: ErrorEnvelope | null;

  constructor(errorCode: ErrorCode, init: HivewatchErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    const info = codeInfo(errorCode);
    this.name = 'HivewatchError';
    this.code = errorCode;
    this.category = info.category;
    this.origin = init.origin ?? defaultOrigin(info.category);
    this.recoverable = init.recoverable ?? info.recoverable;
    this.recoveryHint = init.recoveryHint === undefined ? info.hint : init.recoveryHint;
    this.context = init.context ?? {};
    this.timestamp = init.timestamp ?? 0;
    this.correlation = { ...EMPTY_CORRELATION, ...init.correlation };
    const causedBy = init.causedBy ?? null;
    this.causedBy = causedBy instanceof HivewatchError ? causedBy.toEnvelope() : causedBy;
    if (!isValidOrigin(this.origin)) {
      throw new TypeError(`invalid error origin "${this.origin}"`);
    }
    const problem = invariantProblem(this.category, this.origin, this.recoverable);
    if (problem !== null) throw new ErrorModelViolation(`${errorCode}: ${problem}`);
  }

  /** A system error escalates: no catch and no continue / ignore parallel stops it (§9). */
  get escalates(): boolean {
    return escalates(this.category);
  }

  /** A copy with more correlation and a timestamp, as errors gain context on their way up. */
  withCorrelation(correlation: Partial<Correlation>, timestamp?: number): HivewatchError {
    return new HivewatchError(this.code, {
      message: this.message,
      origin: this.origin,
      recoverable: this.recoverable,
      recoveryHint: this.recoveryHint,
      context: this.context,
      timestamp: timestamp ?? this.timestamp,
      correlation: { ...this.correlation, ...correlation },
      cause: this.cause,
      causedBy: this.causedBy,
    });
  }

  /** A copy caused by `cause` (rule 16): a failing `finally` keeps the error it replaced. */
  withCause(cause: HivewatchError | ErrorEnvelope): HivewatchError {
    return new HivewatchError(this.code, {
      message: this.message,
      origin: this.origin,
      recoverable: this.recoverable,
      recoveryHint: this.recoveryHint,
      context: this.context,
      timestamp: this.timestamp,
      correlation: this.correlation,
      cause: this.cause,
      causedBy: cause,
    });
  }

  toEnvelope(): ErrorEnvelope {
    return {
      category: this.category,
      code: this.code,
      message: this.message,
      origin: this.origin,
      recoverable: this.recoverable,
      recovery_hint: this.recoveryHint,
      context: structuredClone(this.context),
      timestamp: this.timestamp,
      correlation: { ...this.correlation },
      ...(this.causedBy !== null ? { cause: structuredClone(this.causedBy) } : {}),
    };
  }

  toJSON(): ErrorEnvelope {
    return this.toEnvelope();
  }

  static fromEnvelope(envelope: ErrorEnvelope): HivewatchError {
    return new HivewatchError(envelope.code, {
      message: envelope.message,
      origin: envelope.origin,
      recoverable: envelope.recoverable,
      recoveryHint: envelope.recovery_hint,
      context: envelope.context,
      timestamp: envelope.timestamp,
      correlation: envelope.correlation,
      causedBy: envelope.cause ?? null,
    });
  }
}

/**
 * Thrown when code tries to build an error that breaks the error model (§9): a scope error that
 * is recoverable, an origin that does not belong to the category. Where a runtime's result is
 * received, this becomes a SYSTEM_INVARIANT_VIOLATED error, as the model requires.
 */
class ErrorModelViolation extends TypeError {
  constructor(message: string) {
    super(`error model invariant violated: ${message}`);
    this.name = 'ErrorModelViolation';
  }
}

/**
 * Cancellation is not a failure of the work (rule 4). It is a HivewatchError (SYSTEM_CANCELLED)
 * so that every throwable of the product is one, but it is never journaled as an error: code
 * that turns a HivewatchError into a failure tests `isCancelled` first.
 */
export class CancelledError extends HivewatchError {
  constructor(readonly reason: string = 'cancelled by operator') {
    super('SYSTEM_CANCELLED', { message: reason });
    this.name = 'CancelledError';
  }
}

export function isCancelled(error: unknown): error is CancelledError {
  return error instanceof CancelledError;
}

/**
 * Any thrown value becomes a HivewatchError failure; foreign throwables are broken invariants.
 * So is a cancellation that reaches a place where only a failure can arrive: it must never
 * become a failure with the cancellation's own code.
 */
export function toHivewatchError(error: unknown): HivewatchError {
  if (error instanceof HivewatchError && !isCancelled(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
    message: `unexpected ${error instanceof Error ? error.name : typeof error}: ${message}`,
    origin: 'system',
    cause: error,
  });
}

function fail(path: string, expected: string): never {
  throw new TypeError(`invalid error envelope: ${path} must be ${expected}`);
}

/** Parses untrusted JSON (the wire, the journal) into an envelope, naming the first bad field. */
export function parseEnvelope(value: unknown, depth = 0): ErrorEnvelope {
  if (typeof value !== 'object' || value === null) fail('envelope', 'an object');
  const v = value as Record<string, unknown>;
  if (typeof v.category !== 'string' || !ERROR_CATEGORIES.includes(v.category as ErrorCategory)) {
    fail('category', `one of ${ERROR_CATEGORIES.join(', ')}`);
  }
  if (typeof v.code !== 'string' || !isErrorCode(v.code)) fail('code', 'a known error code');
  if (codeInfo(v.code).category !== v.category) fail('code', `a code of category ${String(v.category)}`);
  if (typeof v.message !== 'string') fail('message', 'a string');
  if (typeof v.origin !== 'string' || !isValidOrigin(v.origin)) fail('origin', 'a valid origin');
  if (typeof v.recoverable !== 'boolean') fail('recoverable', 'a boolean');
  const problem = invariantProblem(v.category as ErrorCategory, v.origin, v.recoverable);
  if (problem !== null) throw new TypeError(`invalid error envelope: ${problem}`);
  if (v.recovery_hint !== null && typeof v.recovery_hint !== 'string') fail('recovery_hint', 'a string or null');
  if (typeof v.context !== 'object' || v.context === null || Array.isArray(v.context)) fail('context', 'an object');
  if (typeof v.timestamp !== 'number') fail('timestamp', 'a number');
  if (typeof v.correlation !== 'object' || v.correlation === null) fail('correlation', 'an object');
  const c = v.correlation as Record<string, unknown>;
  for (const key of ['project', 'flow', 'run', 'task'] as const) {
    if (c[key] !== null && c[key] !== undefined && typeof c[key] !== 'string') fail(`correlation.${key}`, 'a string or null');
  }
  for (const key of ['step', 'attempt'] as const) {
    if (c[key] !== null && c[key] !== undefined && typeof c[key] !== 'number') fail(`correlation.${key}`, 'a number or null');
  }
  let cause: ErrorEnvelope | undefined;
  if (v.cause !== undefined) {
    if (depth >= MAX_CAUSE_DEPTH) fail('cause', `nested at most ${MAX_CAUSE_DEPTH} deep`);
    try {
      cause = parseEnvelope(v.cause, depth + 1);
    } catch (error) {
      throw new TypeError(`${error instanceof Error ? error.message : String(error)} (in cause)`);
    }
  }
  return {
    category: v.category as ErrorCategory,
    code: v.code,
    message: v.message,
    origin: v.origin,
    recoverable: v.recoverable,
    recovery_hint: v.recovery_hint,
    context: v.context as Record<string, unknown>,
    timestamp: v.timestamp,
    correlation: { ...EMPTY_CORRELATION, ...(c as Partial<Correlation>) },
    ...(cause !== undefined ? { cause } : {}),
  };
}
