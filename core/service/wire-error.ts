import { API_ERROR_STATUS, ApiError, type ApiErrorCode } from '../common/api-errors.js';
import { isStoreError, type StoreErrorKind } from '../store/store-error.js';

/**
 * The service's edge for errors: whatever a call throws becomes what a transport sends (the
 * table of codes and statuses is core/common/api-errors.ts).
 */

export interface WireError {
  status: number;
  body: { error: { code: string; message: string } };
}

/** The store's own argument and state errors, as the API's codes. */
const STORE_KIND_CODES: Partial<Record<StoreErrorKind, ApiErrorCode>> = {
  not_found: 'not_found',
  not_resumable: 'not_resumable',
  invalid_argument: 'invalid_input',
  unavailable: 'store_unavailable',
};

function wire(code: ApiErrorCode, message: string): WireError {
  return { status: API_ERROR_STATUS[code], body: { error: { code, message } } };
}

/**
 * Any error → what a transport sends. ApiErrors keep their code; the store's argument and state
 * errors map to theirs; everything else is `internal` (500) with its message kept (a local,
 * single-operator app: the message is the operator's best clue).
 */
export function toWireError(error: unknown): WireError {
  if (error instanceof ApiError) return { status: error.status, body: { error: { code: error.apiCode, message: error.message } } };
  const code = isStoreError(error) ? STORE_KIND_CODES[error.kind] : undefined;
  if (code !== undefined) return wire(code, (error as Error).message);
  return wire('internal', error instanceof Error ? error.message : String(error));
}

/** Store errors thrown inside the service become ApiErrors so in-process callers see the same thing as HTTP. */
export function asApiError(error: unknown): unknown {
  if (error instanceof ApiError || !isStoreError(error)) return error;
  const code = STORE_KIND_CODES[error.kind];
  return code === undefined ? error : new ApiError(code, error.message);
}

/**
 * The database is away (a team database restarting, the store's `unavailable`), also when a
 * write failure carries it as its cause: worth waiting for, unlike a full disk.
 */
export function isDatabaseAway(error: unknown): boolean {
  return isStoreError(error, 'unavailable') || isStoreError((error as { cause?: unknown } | null)?.cause, 'unavailable');
}
