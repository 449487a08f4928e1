/**
 * Errors of the store's own API (not run failures: those are ErrorEnvelopes in the journal).
 * The service maps `kind` onto its transport: not_found → 404, not_resumable → 409,
 * invalid_argument / invalid_event → 400, corrupt → 500.
 */
export type StoreErrorKind = 'not_found' | 'not_resumable' | 'invalid_argument' | 'invalid_event' | 'corrupt' | 'closed' | 'unavailable';

export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

export function isStoreError(error: unknown, kind?: StoreErrorKind): error is StoreError {
  return error instanceof StoreError && (kind === undefined || error.kind === kind);
}
