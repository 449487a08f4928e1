import { VERSION } from '../base/version.js';
import { alertsCommand, ALERTS_BOOLEANS, ALERTS_VALUES } from './admin/alerts.js';
import { noPositionals, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { bulkCommand, isBulkCall } from './run/bulk.js';
import { exitCodeOf } from './exit-codes.js';
import { checkCommand } from './run/check.js';
import { commandHelp, wantsHelp } from './help.js';
import { ExitCode, processIo, type CliIo } from './io.js';
import { continueCommand, errorsCommand, pruneCommand, replayCommand, runsCommand } from './history/history.js';
import { issuesCommand, ISSUES_FLAGS } from './history/issues.js';
import { migrateCommand } from './admin/migrate.js';
import { otelEnvCommand } from './admin/otel-env.js';
import { runFlow } from './run/run.js';
import { costCommand } from './history/cost.js';
import { flowsCommand } from './history/flows.js';

const HELP = `hivewatch ${VERSION} — run and watch agent flows

Usage:
  hivewatch check <flow.prose> [--json]          check a flow; exit 0, or 2 with file:line:col diagnostics
  hivewatch run <flow.prose> [options]           run a flow; exit 0 completed, 1 failed, 2 invalid, 3 cancelled
      --json                one event per line on stdout
      --virtual-clock       backoff sleeps jump instead of waiting (the journal keeps each delay)
      --max-steps N         stop before step N+1 (default 100)
      --concurrency N       tasks of one step running at once (default 4)
      --agent NAME          default agent for sessions that name none (or HIVEWATCH_AGENT)
      --repo PATH           repository of agent work (default: the flow's repo:, else the one around the current directory)
      --workspace MODE      where sessions work unless they say: worktree (a git worktree per task) or none
      --db PATH             database (default: HIVEWATCH_DB, else the OS data directory)
      --kill-grace DURATION how long an agent told to stop (SIGTERM) has before SIGKILL (default 2s);
                            a second Ctrl-C does not wait for it
  hivewatch runs [--status S[,S]] [--flow F] [--text T] [--since 24h] [--limit N] [--json]
                                                 ERROR: an ended run's ending error (and its root cause),
                                                 a live run's newest error; --json carries endingError
                                                 --status waiting-limit: runs waiting for a usage limit's
                                                 reset (--json carries waitingUntil, epoch ms)
                                                 --status waiting-approval: agents blocked on a permission
                                                 prompt (--json carries approvalSince, approvalLabel)
  hivewatch errors [--by category|origin|code|flow|handled|run|task] [--since 24h] [--flow F] [--category C]
                  [--origin O] [--code C] [--limit N] [--json]
                                                 error occurrences; --by handled: handled, unhandled, pending
  hivewatch errors --failures [--by code|rootCode|category|origin|flow] [--since 24h] [--json]
                                                 failures: one per run that ended failed, by its ending
                                                 error (with its root cause); --json: {"total": N, "rows": [...]}
  hivewatch errors --groups [--since 24h] [--json]   errors grouped by fingerprint
  hivewatch cost [--since 7d] [--by flow|run] [--flow F] [--category C] [--origin O] [--code C] [--limit N] [--json]
                                                 what agents spent, split three ways: by runs that ended
                                                 failed, on retried attempts of runs that did not, by
                                                 successful work; per flow and per hour or day (or the
                                                 costliest runs); the filters are the Errors screen's
  hivewatch flows [--since 7d] [--sort attention|name|failures|success|duration|cost] [--json]
                                                 each flow's health: check ok / check errors (its file),
                                                 newest run, success rate and failures of the runs that
                                                 ended in the window, median duration, cost and its share
                                                 on failure; exit 0, or 64 for a bad --since / --sort
  hivewatch issues [--status unresolved|resolved|ignored|regressed|escalating|new|ongoing]
                  [--since 24h] [--sort last-seen|first-seen|events|failures|runs|trend] [--limit N] [--json]
                                                 error issues: groups with a title, a status and counts;
                                                 --since: events and failures in that period and the change
                                                 against the period before (--sort trend: grew most first)
  hivewatch issues show ID [--since 24h] [--json]
                                                 everything about one issue: why its status, counts, trend,
                                                 latest occurrence and its causes, activity, flow change, runs
  hivewatch issues resolve|reopen ID [--json]    ID: the issue's fingerprint, or the start of it
  hivewatch issues ignore ID [--for 24h | --until-count N | --until-escalating] [--json]
  hivewatch issues runs ID [--json]              the runs with any occurrence of the issue
  hivewatch replay <runId> [--json]              rebuild a run's projections from its journal; exit 1 on a difference
  hivewatch resume <runId> [run options]         continue a failed, cancelled or interrupted run from its last checkpoint
  hivewatch retry <runId> [run options]          run the same flow again, linked to the old run
  hivewatch cancel|retry|resume --where 'status=running&flow=F' | --all | RUN_ID… [--yes] [--json]
                                                 one action on many runs (keys: status, flow, text, code,
                                                 category, anyCode, anyCategory, since); a filter of
                                                 statuses alone takes every such run, so it needs --all;
                                                 more than one run needs --yes or a "y" at the prompt;
                                                 retried and resumed runs run here until they end
  hivewatch prune --older-than 30d [--json]      delete finished runs (rollups stay exact)
  hivewatch migrate --from FILE --to postgres://… [--dry-run] [--json] [--batch N]
                                                 copy a SQLite history into a team PostgreSQL database
                                                 (N: events per transaction, default 2000; runs stay whole)
  hivewatch otel-env [--agent claude-code|codex-cli] [--db PATH] [--port N] [--store-prompts on|off]
                                                 print the settings that send an agent's telemetry to this database
  hivewatch alerts add --when CONDITION (--webhook URL | --desktop | both) [--flow F] [--code C] [--category C] [--format json|slack] [--throttle 10m]
      CONDITION: run-failed | new-issue | regression | escalating | retrying-longer-than=10m | retrying-more-than=3
                 | running-longer-than=1h | usage-limit | session-failed
                 | approval-pending-longer-than=10m | telemetry-silent-longer-than=1m
  hivewatch alerts list | remove ID | test ID | deliveries [--limit N]   (all with --json; webhooks shown redacted)
  hivewatch serve [--port N] [--db PATH] [--demo] [--otel-port N|off] [--otel-idle DURATION]
                                                 the browser shell alone, on 127.0.0.1
  hivewatch start [--port N] [--db PATH] [--demo] [--browser] [--no-open] [--otel-port N|off] [--otel-idle DURATION]
                                                 the app: Electron where installed, else the browser shell
  hivewatch help                                 this text; COMMAND --help: that command's lines

Every command that reads or writes the history takes --db PATH or postgres://… (default: HIVEWATCH_DB,
else the OS data directory).
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

const RUN_BOOLEANS = ['json', 'virtual-clock'] as const;
const RUN_VALUES = ['max-steps', 'concurrency', 'agent', 'db', 'repo', 'workspace', 'kill-grace'] as const;
const BULK_BOOLEANS = ['yes', 'all'] as const;
const BULK_VALUES = ['where'] as const;

const COMMANDS: Record<string, Command> = {
  check: {
    booleans: ['json'],
    values: [],
    run: (args, io) => checkCommand(onePositional(args, 'flow file'), io, args.flags.has('json')),
  },
  run: {
    booleans: RUN_BOOLEANS,
    values: RUN_VALUES,
    run: (args, io) => runFlow({ file: onePositional(args, 'flow file') }, args, io),
  },
  runs: {
    booleans: ['json'],
    values: ['db', 'status', 'flow', 'text', 'since', 'limit'],
    run: (args, io) => runsCommand(noPositionals(args, 'runs'), io),
  },
  errors: {
    booleans: ['json', 'groups', 'failures'],
    values: ['db', 'by', 'since', 'flow', 'category', 'origin', 'code', 'limit'],
    run: (args, io) => errorsCommand(noPositionals(args, 'errors'), io),
  },
  cost: {
    booleans: ['json'],
    values: ['db', 'since', 'by', 'flow', 'category', 'origin', 'code', 'limit'],
    run: (args, io) => costCommand(noPositionals(args, 'cost'), io),
  },
  flows: {
    booleans: ['json'],
    values: ['db', 'since', 'sort'],
    run: (args, io) => flowsCommand(noPositionals(args, 'flows'), io),
  },
  issues: {
    ...ISSUES_FLAGS,
    run: (args, io) => issuesCommand(args, io),
  },
  replay: {
    booleans: ['json'],
    values: ['db'],
    run: (args, io) => replayCommand(args, io, onePositional(args, 'run id')),
  },
  resume: {
    booleans: [...RUN_BOOLEANS, ...BULK_BOOLEANS],
    values: [...RUN_VALUES, ...BULK_VALUES],
    run: (args, io) => (isBulkCall(args) ? bulkCommand('resume', args, io) : continueCommand('resume', args, io, onePositional(args, 'run id'))),
  },
  retry: {
    booleans: [...RUN_BOOLEANS, ...BULK_BOOLEANS],
    values: [...RUN_VALUES, ...BULK_VALUES],
    run: (args, io) => (isBulkCall(args) ? bulkCommand('retry', args, io) : continueCommand('retry', args, io, onePositional(args, 'run id'))),
  },
  cancel: {
    booleans: ['json', ...BULK_BOOLEANS],
    values: ['db', ...BULK_VALUES],
    run: (args, io) => bulkCommand('cancel', args, io),
  },
  'otel-env': {
    booleans: [],
    values: ['agent', 'db', 'port', 'store-prompts'],
    run: (args, io) => otelEnvCommand(noPositionals(args, 'otel-env'), io),
  },
  prune: {
    booleans: ['json'],
    values: ['db', 'older-than'],
    run: (args, io) => pruneCommand(noPositionals(args, 'prune'), io),
  },
  alerts: {
    booleans: ALERTS_BOOLEANS,
    values: ALERTS_VALUES,
    run: (args, io) => alertsCommand(args, io),
  },
  migrate: {
    booleans: ['json', 'dry-run'],
    values: ['from', 'to', 'batch'],
    run: (args, io) => migrateCommand(args, io),
  },
};

/** The commands `main` dispatches (serve and start go to server/cli.ts first); the help test walks them. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

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
  if (wantsHelp(rest)) {
    io.out(commandHelp(HELP, name));
    return ExitCode.ok;
  }
  try {
    return await command.run(parseArgs(rest, command), io);
  } catch (error) {
    // Usage errors and refusals the operator fixes (a database URL, a newer schema) are said in one
    // line; anything else is rethrown with its stack.
    const exit = exitCodeOf(error);
    io.err(`hivewatch ${name}: ${exit.message}\n`);
    return exit.exitCode;
  }
}
