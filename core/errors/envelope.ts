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

/** The structured error every failure becomes (DESIGN rule 1). Plain JSON, safe to journal. */
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
}

export const EMPTY_CORRELATION: Correlation = Object.freeze({
  project: null,
  flow: null,
  run: null,
  step: null,
  task: null,
  attempt: null,
});
