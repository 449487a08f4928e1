/** Where the CLI writes; tests pass their own to capture output without a subprocess. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdout: process.stdout,
  env: process.env,
};

export const ExitCode = {
  ok: 0,
  failed: 1,
  invalid: 2,
  cancelled: 3,
  usage: 64,
} as const;
