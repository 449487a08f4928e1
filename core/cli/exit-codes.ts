import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../base/errors/taxonomy.js';
import { ExitCode } from './io.js';

/**
 * The command line's edge for errors: what a command threw becomes the exit code and the one line
 * `main` writes, in this one place (HTTP's is core/service/wire-error.ts; IPC's is electron/ipc.ts
 * over the same).
 */

/**
 * System errors that are still the operator's to fix, said in one line like a user error: the
 * database away, a schema newer than this Hivewatch, a database the store finds inconsistent
 * (`hivewatch replay` checks it).
 */
const OPERATOR_SYSTEM_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['SYSTEM_STORE_UNAVAILABLE', 'SYSTEM_SCHEMA_TOO_NEW', 'SYSTEM_STATE_CORRUPTION']);

interface ErrorExit {
  exitCode: (typeof ExitCode)[keyof typeof ExitCode];
  /** What `main` writes after `hivewatch <command>: `, without a stack. */
  message: string;
}

/**
 * A usage error (USER_USAGE) exits 64 with its message; any other user error, and the system
 * errors the operator fixes, exit 1 with the message and no stack. Anything else is a fault of
 * Hivewatch: it is rethrown, so its stack is printed.
 */
export function exitCodeOf(error: unknown): ErrorExit {
  if (error instanceof HivewatchError) {
    if (error.code === 'USER_USAGE') return { exitCode: ExitCode.usage, message: error.message };
    if (error.category === 'user' || OPERATOR_SYSTEM_CODES.has(error.code)) return { exitCode: ExitCode.failed, message: error.message };
  }
  throw error;
}
