/**
 * The errors the API answers with, the same in every shell: in-process callers get an ApiError,
 * HTTP sends `status` with `{error: {code, message}}`, IPC carries that wire form, and both
 * clients rebuild the same ApiError from it. The codes are one closed table with their status,
 * so no transport invents a code and a client can switch on every one it may see.
 */
export const API_ERROR_STATUS = {
  invalid_input: 400,
  invalid_flow: 400,
  invalid_json: 400,
  payload_too_large: 400,
  flow_outside_folder: 400,
  flow_not_a_file: 400,
  issue_ambiguous: 400,
  /** A bulk filter matching more runs than one action takes: act in parts. */
  too_many_runs: 400,
  /** A bulk filter that names nothing narrowing, sent without `all: true`: it would act on every run. */
  broad_filter: 400,
  /** A flow draft holding a marker of a secret the window hid, which the flow it came from cannot fill. */
  hidden_secret: 400,
  unauthorized: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  /** No route for the path (HTTP), or a store lookup of something that is not there. */
  not_found: 404,
  run_not_found: 404,
  flow_not_found: 404,
  issue_not_found: 404,
  alert_rule_not_found: 404,
  /** An IPC call naming a method the API does not have. */
  unknown_method: 404,
  method_not_allowed: 405,
  not_resumable: 409,
  run_active: 409,
  flow_unavailable: 409,
  flow_exists: 409,
  no_flows_folder: 409,
  /** A command for an external run (agent telemetry): Hivewatch watches it, it does not run it. */
  external_run: 409,
  /** The service is shutting down and takes no new run. */
  closing: 409,
  alerts_unavailable: 409,
  /** Anything not foreseen; the message is kept (a local, single-operator app: it is the best clue). */
  internal: 500,
  /** The journal cannot be written (a full disk); reads keep working. */
  journal_unwritable: 503,
  /** The database server is away (a team database restarting): try again once it is back. */
  store_unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * What a client calls an answer that carries no error of the API (a proxy's page, a cut
 * connection, a code this client does not know): the HTTP status is then all there is.
 */
export const UNREADABLE_ANSWER = 'http_error';

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode | typeof UNREADABLE_ANSWER,
    message: string,
    /** Only for an answer the table does not explain: its HTTP status as received. */
    receivedStatus?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = code === UNREADABLE_ANSWER ? (receivedStatus ?? 500) : API_ERROR_STATUS[code];
  }
}

export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code);
}

/** A wire answer (status and body `{error: {code, message}}`, or anything else) → the same ApiError. */
export function apiErrorFrom(status: number, body: unknown, fallback: string): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const message = typeof error?.message === 'string' ? error.message : fallback;
  return isApiErrorCode(error?.code) ? new ApiError(error.code, message) : new ApiError(UNREADABLE_ANSWER, message, status);
}
