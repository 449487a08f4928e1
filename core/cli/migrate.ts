import { existsSync } from 'node:fs';
import { MUTED_FLOWS_SETTING } from '../service/flows/notify-settings.js';
import { openHostStore } from '../service/history/open.js';
import { isPostgresUrl, isStoreError, openSqliteStore, SCHEMA_VERSION, StoreError, type HivewatchStore, type SqliteStore } from '../store/index.js';
import { redactUrl } from '../store/postgres/url.js';
import { sqliteContractStore } from '../store/sqlite/async-store.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { copyHistory, type CopyReport } from './history-copy.js';
import { ExitCode, type CliIo } from './io.js';

/**
 * `hivewatch migrate --from FILE --to postgres://…`: copies an operator's SQLite history into a
 * team database (history-copy.ts does the copying; decisions in
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

/** The SQLite file, read-only, at this Hivewatch's schema version (a file is never changed by migrate). */
function openSource(path: string): HivewatchStore {
  if (isPostgresUrl(path)) throw new UsageError('--from must be a SQLite file (the history to copy), not a PostgreSQL URL');
  if (path === ':memory:' || !existsSync(path)) throw new StoreError('invalid_argument', `no such file: ${path}`);
  let sqlite: SqliteStore;
  let version: number;
  try {
    sqlite = openSqliteStore({ path, readonly: true });
  } catch (error) {
    throw new StoreError('invalid_argument', `cannot read ${path} as a Hivewatch database: ${(error as Error).message}`, { cause: error });
  }
  try {
    try {
      version = sqlite.stats().schemaVersion;
    } catch (error) {
      throw new StoreError('invalid_argument', `cannot read ${path} as a Hivewatch database: ${(error as Error).message}`, { cause: error });
    }
    if (version < SCHEMA_VERSION) {
      throw new StoreError(
        'invalid_argument',
        `${path} is at schema version ${version}, and this Hivewatch copies version ${SCHEMA_VERSION}: open it once with this Hivewatch ` +
          `(\`hivewatch runs --db ${path}\` migrates it), then migrate again`,
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new StoreError(
        'invalid_argument',
        `${path} is at schema version ${version}, newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`,
      );
    }
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqliteContractStore(sqlite);
}

/**
 * The target, migrated to this schema by opening. A dry run opens it read-only and writes nothing;
 * a database without Hivewatch's schema yet is then an empty one (every run would be copied).
 * Opened as a host opens it: a recovery there ends a dead host's leftover agents on this machine.
 */
async function openTarget(url: string, dryRun: boolean): Promise<HivewatchStore | null> {
  if (!isPostgresUrl(url)) throw new UsageError('--to must be a PostgreSQL URL (postgres://user@host:5432/database)');
  try {
    return await openHostStore({ path: url, readonly: dryRun });
  } catch (error) {
    if (dryRun && error instanceof StoreError && / has no Hivewatch schema/.test(error.message)) return null;
    throw error;
  }
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
  const location = redactUrl(to);

  const source = openSource(from);
  try {
    const target = await openTarget(to, dryRun);
    let report: CopyReport;
    try {
      let reported = 0;
      report = await copyHistory(source, target, {
        settings: MIGRATED_SETTINGS,
        dryRun,
        ...(batchEvents !== undefined ? { batchEvents } : {}),
        onProgress: (p) => {
          if (p.runs - reported < PROGRESS_EVERY_RUNS && p.runs < p.totalRuns) return;
          reported = p.runs;
          io.err(`migrate: ${p.runs}/${p.totalRuns} runs, ${p.events}/${p.totalEvents} events\n`);
        },
      });
    } catch (error) {
      // The operator's to fix (the file, the URL, a conflicting history): said as it is.
      if (error instanceof UsageError || isStoreError(error, 'invalid_argument') || isStoreError(error, 'corrupt')) throw error;
      // Anything else — a batch another migrate (or host) wrote first, the server going away — failed
      // one transaction: what failed is not on the target, and runs copied before it are whole.
      const message = error instanceof Error ? error.message : String(error);
      io.err(`hivewatch migrate: failed: ${message}\n  Runs copied before the failure are whole; run the same command again to copy the rest.\n`);
      return ExitCode.failed;
    } finally {
      await target?.close();
    }
    io.out(args.flags.has('json') ? `${JSON.stringify({ from, to: location, ...report })}\n` : summaryLine(report, from, location));
    return ExitCode.ok;
  } finally {
    await source.close();
  }
}
