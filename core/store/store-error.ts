import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../base/errors/taxonomy.js';

/**
 * Errors of the store's own API (not run failures: those are ErrorEnvelopes in the journal).
 * The service maps `kind` onto its transport: not_found → 404, not_resumable → 409,
 * invalid_argument / invalid_event → 400, corrupt → 500.
 */
export type StoreErrorKind =
  | 'not_found'
  | 'not_resumable'
  | 'invalid_argument'
  | 'invalid_event'
  | 'corrupt'
  | 'closed'
  | 'unavailable'
  /** Events of runs another host interrupted meanwhile (RunTakenError): this host no longer owns them. */
  | 'run_taken';

/** Each kind's code in the one taxonomy (core/base/errors/taxonomy.ts). */
const KIND_CODES: Record<StoreErrorKind, ErrorCode> = {
  not_found: 'USER_NOT_FOUND',
  not_resumable: 'USER_RUN_NOT_RESUMABLE',
  invalid_argument: 'USER_INVALID_INPUT',
  invalid_event: 'SYSTEM_EVENT_REJECTED',
  corrupt: 'SYSTEM_STATE_CORRUPTION',
  closed: 'SYSTEM_STORE_CLOSED',
  unavailable: 'SYSTEM_STORE_UNAVAILABLE',
  run_taken: 'SYSTEM_RUN_TAKEN',
};

interface StoreErrorOptions {
  cause?: unknown;
  /** A more precise code than the kind's (a schema newer than this Hivewatch is `corrupt`, SYSTEM_SCHEMA_TOO_NEW). */
  code?: ErrorCode;
}

export class StoreError extends HivewatchError {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    options: StoreErrorOptions = {},
  ) {
    super(options.code ?? KIND_CODES[kind], { message, cause: options.cause });
    this.name = 'StoreError';
  }
}

export function isStoreError(error: unknown, kind?: StoreErrorKind): error is StoreError {
  return error instanceof StoreError && (kind === undefined || error.kind === kind);
}

/**
 * A batch refused because some of its runs were interrupted by another host while this one was
 * not heard from (its lease ran out: paused, or cut off from the database). Those runs are no
 * longer this host's: nothing more of them may be journaled, and the host stops them
 * (core/store/sink/sink.ts drops their events; core/service/runs/host-watch.ts stops the runs).
 */
export class RunTakenError extends StoreError {
  constructor(
    readonly runIds: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      'run_taken',
      `${runIds.length === 1 ? `run ${runIds[0]} was` : `runs ${runIds.join(', ')} were`} interrupted by another host while this one was not heard from; this host no longer owns ${runIds.length === 1 ? 'it' : 'them'}`,
      options,
    );
    this.name = 'RunTakenError';
  }
}
