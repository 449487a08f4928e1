/** Where the CLI writes; tests pass their own to capture output without a subprocess. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where a confirmation is read (bulk actions); absent or not a TTY: nothing is asked. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdout: process.stdout,
  env: process.env,
  stdin: process.stdin,
};

/**
 * Every exit code of `hivewatch` (and `npm start`), as README's "Exit codes" table lists them;
 * core/cli/exit-codes.test.ts holds the two to each other and to the code.
 */
export const ExitCode = {
  /** Done: the run completed, the check passed (warnings allowed), the command did its work. */
  ok: 0,
  /** The run failed or could not be completed, or the command could not do its work. */
  failed: 1,
  /** The flow does not check (for run / resume / retry: on record as a failed run). */
  invalid: 2,
  /** The run was cancelled. */
  cancelled: 3,
  /** Bad usage: an unknown command or option, a missing or malformed value (sysexits EX_USAGE). */
  usage: 64,
  /** dist/ is missing: `npm run build` (sysexits EX_SOFTWARE; bin/hivewatch.js, plain JS, writes the number). */
  notBuilt: 70,
  /** A second Ctrl-C of `serve` / `start`: stop now, without waiting for the runs to end (128 + SIGINT). `run` forces its cancel instead and exits 3. */
  interruptedTwice: 130,
} as const;
