import { VERSION } from '../version.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { checkCommand } from './check.js';
import { ExitCode, processIo, type CliIo } from './io.js';
import { runFlow } from './run.js';

const HELP = `hivewatch ${VERSION} — run and watch agent flows

Usage:
  hivewatch check <flow.prose> [--json]          check a flow; exit 0, or 2 with file:line:col diagnostics
  hivewatch run <flow.prose> [options]           run a flow; exit 0 completed, 1 failed, 2 invalid, 3 cancelled
      --json                one event per line on stdout
      --virtual-clock       backoff sleeps jump instead of waiting (the journal keeps each delay)
      --max-steps N         stop before step N+1 (default 100)
      --concurrency N       tasks of one step running at once (default 4)
      --agent NAME          default agent for sessions that name none (or HIVEWATCH_AGENT)
  hivewatch help
`;

interface Command {
  booleans: readonly string[];
  values: readonly string[];
  run: (args: ParsedArgs, io: CliIo) => Promise<number>;
}

function onePositional(args: ParsedArgs, what: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`expected exactly one ${what}, got ${args.positionals.length}`);
  return args.positionals[0] as string;
}

const COMMANDS: Record<string, Command> = {
  check: {
    booleans: ['json'],
    values: [],
    run: (args, io) => checkCommand(onePositional(args, 'flow file'), io, args.flags.has('json')),
  },
  run: {
    booleans: ['json', 'virtual-clock'],
    values: ['max-steps', 'concurrency', 'agent'],
    run: (args, io) => runFlow({ file: onePositional(args, 'flow file') }, args, io),
  },
};

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(HELP);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (name === '--version') {
    io.out(`${VERSION}\n`);
    return ExitCode.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`hivewatch: unknown command "${name}"\n\n${HELP}`);
    return ExitCode.usage;
  }
  try {
    return await command.run(parseArgs(rest, command), io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`hivewatch ${name}: ${error.message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
}
