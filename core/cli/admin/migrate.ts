import { MUTED_FLOWS_SETTING } from '../../service/flows/notify-settings.js';
import type { CopyReport } from '../../service/history/copy.js';
import { isTeamDatabaseUrl, openMigrationSource, printableDatabaseUrl, type MigrationSource } from '../../service/history/migrate.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ExitCode, type CliIo } from '../io.js';

/**
 * `hivewatch migrate --from FILE --to postgres://…`: copies an operator's SQLite history into a
 * team database (core/service/history/copy.ts does the copying; decisions in
 * docs/decisions/0028-moving-history-to-a-team-database.md).
 */

/**
 * Settings that belong to the history and mean the same on the team database; copied only where
 * the target has none. Not copied: `http.token` and `live_instance` (secrets and identities of
 * one machine's app), `http.port` (a port free on one machine), `otel.token` (an ingest token
 * the agents of that machine were given), `otel.store_prompts` (whether prompt text may be kept
 * is the team database's privacy choice, not one operator's).
 */
const MIGRATED_SETTINGS = [MUTED_FLOWS_SETTING] as const;

/** Progress on stderr after every this many runs copied. */
const PROGRESS_EVERY_RUNS = 100;
/** `--batch`: events per transaction, at most this many (a transaction is held in memory while it is built). */
const MAX_BATCH_EVENTS = 1_000_000;

/** The SQLite file to copy; a PostgreSQL URL is the operator's slip (checked before the file is opened). */
function openSource(path: string): MigrationSource {
  if (isTeamDatabaseUrl(path)) throw new UsageError('--from must be a SQLite file (the history to copy), not a PostgreSQL URL');
  return openMigrationSource(path);
}

function checkTarget(url: string): void {
  if (!isTeamDatabaseUrl(url)) throw new UsageError('--to must be a PostgreSQL URL (postgres://user@host:5432/database)');
}

function summaryLine(report: CopyReport, from: string, to: string): string {
  const verb = report.dryRun ? 'would copy' : 'copied';
  const extras = [
    report.skippedRuns > 0 ? `skipped ${report.skippedRuns} runs already there` : '',
    report.sessions > 0 ? `${report.sessions} agent sessions` : '',
    report.settings.length > 0 ? `settings ${report.settings.join(', ')}` : '',
  ].filter((s) => s !== '');
  const tail = extras.length > 0 ? ` (${extras.join('; ')})` : '';
  return `${verb} ${report.runs} runs, ${report.events} events, ${report.errors} errors from ${from} to ${to}${tail}\n`;
}

export async function migrateCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
  const from = stringFlag(args, 'from');
  const to = stringFlag(args, 'to');
  if (from === undefined || to === undefined) throw new UsageError('needs --from <sqlite file> and --to <postgres://… URL>');
  const dryRun = args.flags.has('dry-run');
  const batchEvents = intFlag(args, 'batch', 1, MAX_BATCH_EVENTS);
  const location = printableDatabaseUrl(to);

  const source = openSource(from);
  try {
    checkTarget(to);
    let reported = 0;
    const outcome = await source.copyTo(to, {
      settings: MIGRATED_SETTINGS,
      dryRun,
      ...(batchEvents !== undefined ? { batchEvents } : {}),
      onProgress: (p) => {
        if (p.runs - reported < PROGRESS_EVERY_RUNS && p.runs < p.totalRuns) return;
        reported = p.runs;
        io.err(`migrate: ${p.runs}/${p.totalRuns} runs, ${p.events}/${p.totalEvents} events\n`);
      },
    });
    if ('failed' in outcome) {
      io.err(`hivewatch migrate: failed: ${outcome.failed}\n  Runs copied before the failure are whole; run the same command again to copy the rest.\n`);
      return ExitCode.failed;
    }
    const report = outcome.copied;
    io.out(args.flags.has('json') ? `${JSON.stringify({ from, to: location, ...report })}\n` : summaryLine(report, from, location));
    return ExitCode.ok;
  } finally {
    await source.close();
  }
}
