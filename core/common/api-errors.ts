import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../base/errors/taxonomy.js';

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
  /** An IPC call from a frame that is not the app's own page (an embedded or navigated-away frame). */
  forbidden_frame: 403,
  /** No route for the path (HTTP), or a store lookup of something that is not there. */
  not_found: 404,
  run_not_found: 404,
  flow_not_found: 404,
  issue_not_found: 404,
  alert_rule_not_found: 404,
  /** An IPC call naming a method the API does not have. */
  unknown_method: 404,
  method_not_allowed: 405,
  /** A request body over the limit: HTTP's own status for it (RFC 9110 §15.5.14), as the OTLP receiver answers. */
  payload_too_large: 413,
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

/** Each wire code as the taxonomy's code (core/base/errors/taxonomy.ts): what an ApiError is in the one hierarchy. */
export const API_ERROR_TAXONOMY = {
  invalid_input: 'USER_INVALID_INPUT',
  invalid_flow: 'USER_INVALID_FLOW',
  invalid_json: 'USER_INVALID_JSON',
  payload_too_large: 'USER_PAYLOAD_TOO_LARGE',
  flow_outside_folder: 'USER_FLOW_OUTSIDE_FOLDER',
  flow_not_a_file: 'USER_FLOW_NOT_A_FILE',
  issue_ambiguous: 'USER_ISSUE_AMBIGUOUS',
  too_many_runs: 'USER_TOO_MANY_RUNS',
  broad_filter: 'USER_BROAD_FILTER',
  hidden_secret: 'USER_HIDDEN_SECRET',
  unauthorized: 'POLICY_UNAUTHORIZED',
  forbidden_host: 'POLICY_FORBIDDEN_HOST',
  forbidden_origin: 'POLICY_FORBIDDEN_ORIGIN',
  forbidden_frame: 'POLICY_FORBIDDEN_FRAME',
  not_found: 'USER_NOT_FOUND',
  run_not_found: 'USER_RUN_NOT_FOUND',
  flow_not_found: 'USER_FLOW_NOT_FOUND',
  issue_not_found: 'USER_ISSUE_NOT_FOUND',
  alert_rule_not_found: 'USER_ALERT_RULE_NOT_FOUND',
  unknown_method: 'USER_UNKNOWN_METHOD',
  method_not_allowed: 'USER_METHOD_NOT_ALLOWED',
  not_resumable: 'USER_RUN_NOT_RESUMABLE',
  run_active: 'USER_RUN_ACTIVE',
  flow_unavailable: 'USER_FLOW_UNAVAILABLE',
  flow_exists: 'USER_FLOW_EXISTS',
  no_flows_folder: 'USER_NO_FLOWS_FOLDER',
  external_run: 'USER_RUN_EXTERNAL',
  closing: 'SYSTEM_SERVICE_CLOSING',
  alerts_unavailable: 'SYSTEM_ALERTS_UNAVAILABLE',
  internal: 'SYSTEM_INTERNAL',
  journal_unwritable: 'SYSTEM_EVENT_WRITE_FAILED',
  store_unavailable: 'SYSTEM_STORE_UNAVAILABLE',
  [UNREADABLE_ANSWER]: 'SYSTEM_UNREADABLE_ANSWER',
} as const satisfies Record<ApiErrorCode | typeof UNREADABLE_ANSWER, ErrorCode>;

/**
 * An error of the API: a HivewatchError whose taxonomy code (`code`) follows from its wire code
 * (`apiCode`, what HTTP and IPC carry and what a client switches on) and whose `status` is the
 * table's.
 */
export class ApiError extends HivewatchError {
  readonly status: number;

  constructor(
    readonly apiCode: ApiErrorCode | typeof UNREADABLE_ANSWER,
    message: string,
    /** Only for an answer the table does not explain: its HTTP status as received. */
    receivedStatus?: number,
  ) {
    super(API_ERROR_TAXONOMY[apiCode], { message });
    this.name = 'ApiError';
    this.status = apiCode === UNREADABLE_ANSWER ? (receivedStatus ?? 500) : API_ERROR_STATUS[apiCode];
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
