import { parseArgs as parseWithNode } from 'node:util';
import { HivewatchError } from '../base/errors/hivewatch-error.js';

/**
 * The CLI's argument parsing, on `node:util` `parseArgs` like every other command (server/cli.ts,
 * electron/main.ts): strict in what it accepts, with the CLI's own messages. Unknown flags are
 * errors, not ignored; a boolean flag takes no value; a value flag needs a non-empty one (the next
 * argument, whatever it looks like, or `--name=value`). Anything not starting with `--` is a
 * positional (a lone `-`, or `-5`, is an argument, not a short option: the CLI has none). A `--`
 * ends the flags: what follows it is positional.
 */

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** A command line the CLI cannot take: the message says what to write instead (exit 64). */
export class UsageError extends HivewatchError {
  constructor(message: string) {
    super('USER_USAGE', { message });
    this.name = 'UsageError';
  }
}

export function parseArgs(argv: readonly string[], spec: { booleans: readonly string[]; values: readonly string[] }): ParsedArgs {
  const options = Object.fromEntries([
    ...spec.booleans.map((name) => [name, { type: 'boolean' as const }]),
    ...spec.values.map((name) => [name, { type: 'string' as const }]),
  ]);
  // Not strict: the tokens are checked here, so every mistake gets the CLI's words.
  const { tokens } = parseWithNode({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  let lastShort = -1;
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    else if (token.kind === 'option-terminator') continue;
    else if (!token.rawName.startsWith('--')) {
      // `-abc` comes as three short options of one argument: it is one positional.
      if (token.index !== lastShort) positionals.push(argv[token.index] as string);
      lastShort = token.index;
    } else if (spec.booleans.includes(token.name)) {
      if (token.inlineValue === true) throw new UsageError(`--${token.name} takes no value`);
      flags.set(token.name, true);
    } else if (spec.values.includes(token.name)) {
      if (token.value === undefined || token.value === '') throw new UsageError(`--${token.name} needs a value`);
      flags.set(token.name, token.value);
    } else {
      throw new UsageError(`unknown option --${token.name}`);
    }
  }
  return { positionals, flags };
}

/** A whole-number flag from `min` to `max` (every count the CLI takes has a ceiling), or a usage error saying both. */
export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = args.flags.get(name);
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${String(raw)}`);
  }
  return value;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const raw = args.flags.get(name);
  return typeof raw === 'string' ? raw : undefined;
}

/** A command that takes only options: a stray word (a run id after `runs`) is an error, not ignored. */
export function noPositionals(args: ParsedArgs, command: string): ParsedArgs {
  const stray = args.positionals[0];
  if (stray !== undefined) throw new UsageError(`unexpected argument "${stray}": ${command} takes only options (see hivewatch ${command} --help)`);
  return args;
}
