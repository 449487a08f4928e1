import { isStoreError } from '../store/store-error.js';

/**
 * The errors the API throws to its callers, the same in every shell: in-process callers get an
 * ApiError, HTTP gets `status` with `{error: {code, message}}`, IPC carries the wire form and the
 * client turns it back into an error with the same status, code and message.
 */

/** 503: the journal cannot be written (a full disk); reads keep working. */
export type ApiErrorStatus = 400 | 404 | 409 | 503;

export type ApiErrorCode =
  | 'invalid_input'
  | 'invalid_flow'
  | 'run_not_found'
  | 'flow_not_found'
  | 'not_resumable'
  | 'run_active'
  | 'flow_unavailable'
  | 'journal_unwritable'
  | 'flow_outside_folder'
  | 'flow_exists'
  | 'no_flows_folder'
  /** An IPC call naming a method the API does not have. */
  | 'unknown_method'
  /** A command for an external run (agent telemetry): Hivewatch watches it, it does not run it. */
  | 'external_run';

export class ApiError extends Error {
  constructor(
    readonly status: ApiErrorStatus,
    readonly code: ApiErrorCode | string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface WireError {
  status: number;
  body: { error: { code: string; message: string } };
}

/**
 * Any error → what a transport sends. ApiErrors keep their status; the store's own argument and
 * state errors map to 400 / 404 / 409; everything else is a 500 whose message is kept (this is a
 * local, single-operator app: the message is the operator's best clue).
 */
export function toWireError(error: unknown): WireError {
  const wire = (status: number, code: string, message: string): WireError => ({ status, body: { error: { code, message } } });
  if (error instanceof ApiError) return wire(error.status, error.code, error.message);
  if (isStoreError(error)) {
    if (error.kind === 'not_found') return wire(404, 'not_found', error.message);
    if (error.kind === 'not_resumable') return wire(409, 'not_resumable', error.message);
    if (error.kind === 'invalid_argument') return wire(400, 'invalid_input', error.message);
    // The database server is away (a team database restarting): try again once it is back.
    if (error.kind === 'unavailable') return wire(503, 'store_unavailable', error.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  return wire(500, 'internal', message);
}

/** Store errors thrown inside the service become ApiErrors so in-process callers see the same thing as HTTP. */
export function asApiError(error: unknown): unknown {
  if (error instanceof ApiError || !isStoreError(error)) return error;
  const wire = toWireError(error);
  if (wire.status === 400 || wire.status === 404 || wire.status === 409 || wire.status === 503) {
    return new ApiError(wire.status, wire.body.error.code, wire.body.error.message);
  }
  return error;
}

/**
 * The database is away (a team database restarting, the store's `unavailable`), also when a
 * write failure carries it as its cause: worth waiting for, unlike a full disk.
 */
export function isDatabaseAway(error: unknown): boolean {
  return isStoreError(error, 'unavailable') || isStoreError((error as { cause?: unknown } | null)?.cause, 'unavailable');
}

/**
 * A refusal of the database the operator fixes (a malformed database URL, a schema newer than
 * this Hivewatch, a database that is away): a command says it in one line, without a stack.
 */
export function isOperatorRefusal(error: unknown): error is Error {
  return isStoreError(error, 'invalid_argument') || isStoreError(error, 'corrupt') || isStoreError(error, 'unavailable');
}
