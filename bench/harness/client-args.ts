import { parseArgs } from 'node:util';
import { HivewatchError } from '../../core/base/errors/hivewatch-error.js';

/** Why a child client refused its command line; the message names the argument. */
export class ClientArgsError extends HivewatchError {
  constructor(message: string) {
    super('USER_USAGE', { message });
    this.name = 'ClientArgsError';
  }
}

/**
 * A bench child client's command line: exactly the named positional arguments, no options. The
 * benches spawn these clients themselves, so a wrong count means a bench and its client disagree:
 * refused here rather than measured with an argument silently missing (Number(undefined) is NaN,
 * and a loop to NaN sends nothing and reports success).
 */
export function clientArgs<const Name extends string>(argv: readonly string[], names: readonly Name[]): Record<Name, string> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: [...argv], options: {}, strict: true, allowPositionals: true }));
  } catch (error) {
    throw new ClientArgsError(error instanceof Error ? error.message : String(error));
  }
  if (positionals.length !== names.length) throw new ClientArgsError(`takes ${names.length} arguments, got ${positionals.length}`);
  return Object.fromEntries(names.map((name, i) => [name, positionals[i]])) as Record<Name, string>;
}

/**
 * The node arguments that run a client `script` with `args`: they follow `--`, so an argument
 * that begins with a dash (a random token does, one time in 64) is read as the argument it is,
 * not refused as an unknown option.
 */
export function clientCommand(script: string, args: readonly string[]): string[] {
  return [script, '--', ...args];
}

/** A whole number of at least `min`, or the error naming the argument. */
export function wholeNumber(text: string, name: string, min = 0): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) throw new ClientArgsError(`${name} must be a whole number of at least ${min}, not "${text}"`);
  return value;
}

/**
 * Runs `read` on the client's arguments; on a refusal prints the client's usage to stderr and
 * exits 2, the exit code every bench entry point gives a command line it cannot take.
 */
export function clientArgsOrExit<T>(script: string, usage: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ClientArgsError)) throw error;
    process.stderr.write(`${script}: ${error.message}\nusage: node ${script} ${usage}\n`);
    process.exit(2);
  }
}
