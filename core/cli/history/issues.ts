import { IGNORE_BOUNDS, ISSUE_SORTS, ISSUE_STATUS_FILTERS, type Issue, type IssueSort, type IssueStatusFilter } from '../../service/api-issues.js';
import { ApiError } from '../../common/api-errors.js';
import type { CommandHistory } from '../../service/history/command-history.js';
import { printableHistoryLocation } from '../../service/history/open.js';
import type { IssueBook } from '../../service/issues/book.js';
import { LIMITS } from '../../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ageFlag, openCliCommandHistory, parseAge } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';
import { changeWords, showIssue, table, when } from './issue-show.js';

/**
 * `hivewatch issues`: error issues from the command line, the same book the
 * window uses (core/service/issues/book.ts), journaled as `cli`. An ID is a fingerprint or a unique
 * start of one. Exit codes: 0 done (also when nothing needed to change), 1 no such issue (as
 * `replay` of an unknown run), 64 bad usage, an ambiguous ID included.
 */

export const ISSUES_FLAGS = { booleans: ['json', 'until-escalating'], values: ['db', 'status', 'sort', 'for', 'until-count', 'limit', 'since'] } as const;

const SUBCOMMANDS = ['resolve', 'ignore', 'reopen', 'runs', 'show'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** The period of `--since 24h` (until now), and how it reads: "last 24h"; all time without it. */
function periodOf(args: ParsedArgs, now: number): { scope: { since?: number; until?: number }; label: string } {
  const raw = stringFlag(args, 'since');
  if (raw === undefined) return { scope: {}, label: 'all time' };
  return { scope: { since: now - ageFlag(raw, '--since'), until: now }, label: `last ${raw.trim()}` };
}

/** The status column: with the substatus, and for an ignored issue when the ignore ends (the window's chip says the same). */
function statusWords(issue: Issue): string {
  if (issue.substatus) return `${issue.status} (${issue.substatus})`;
  const ignore = issue.status === 'ignored' ? issue.ignore : null;
  if (ignore?.until != null) return `ignored (until ${when(ignore.until)} UTC)`;
  if (ignore?.count != null) return `ignored (until ${ignore.count} more occurrence${ignore.count === 1 ? '' : 's'})`;
  if (ignore?.escalating) return 'ignored (until it escalates)';
  return issue.status;
}

function oneOfFlag<T extends string>(args: ParsedArgs, name: string, values: readonly T[]): T | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  if (!(values as readonly string[]).includes(raw)) throw new UsageError(`--${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function noFlags(args: ParsedArgs, names: readonly string[], what: string): void {
  const given = names.filter((n) => args.flags.has(n));
  if (given.length > 0) throw new UsageError(`--${given[0]} does not apply to ${what}`);
}

export async function issuesCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const [sub, id, ...extra] = args.positionals;
  if (sub !== undefined && !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`unknown issues command "${sub}"; use show, resolve, ignore, reopen or runs (or none, to list them)`);
  }
  if (sub !== undefined && id === undefined) throw new UsageError(`issues ${sub} needs an issue id (its fingerprint, or the start of it)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === undefined) noFlags(args, ['for', 'until-count', 'until-escalating'], 'the list');
  else noFlags(args, ['status', 'sort'], `issues ${sub}`);
  if (sub !== undefined && sub !== 'show') noFlags(args, ['since'], `issues ${sub}`);
  const period = periodOf(args, Date.now());
  if (sub !== 'ignore') noFlags(args, ['for', 'until-count', 'until-escalating'], sub === undefined ? 'the list' : `issues ${sub}`);
  const history = await openCliCommandHistory(args, io);
  try {
    const issues = history.issueBook();
    const { book } = issues;
    // The list reconciles too: a `new` or regressed row it journals owes its alert before the history closes.
    const code =
      sub === undefined
        ? await listIssues(book, args, period, io)
        : sub === 'show'
          ? await showIssue(issues.pageReads, id as string, period.scope, period.label, args.flags.has('json'), io)
          : await oneIssue(history, book, sub as Exclude<Subcommand, 'show'>, id as string, args, io);
    await issues.settled();
    return code;
  } catch (error) {
    if (error instanceof ApiError && error.apiCode === 'issue_not_found') {
      io.err(`hivewatch issues: ${error.message} in ${printableHistoryLocation(history.location)}
`);
      return ExitCode.failed;
    }
    if (error instanceof ApiError && (error.apiCode === 'issue_ambiguous' || error.apiCode === 'invalid_input')) throw new UsageError(error.message);
    throw error;
  } finally {
    await history.close();
  }
}

/**
 * The list. Without `--since` its counts are all time; with it, the period's events and failures
 * and the change of the events against the period before (`--sort trend`: the largest growth first).
 */
async function listIssues(book: IssueBook, args: ParsedArgs, period: ReturnType<typeof periodOf>, io: CliIo): Promise<number> {
  const status = oneOfFlag<IssueStatusFilter>(args, 'status', ISSUE_STATUS_FILTERS);
  const sort = oneOfFlag<IssueSort>(args, 'sort', ISSUE_SORTS);
  const page = await book.list({
    ...period.scope,
    ...(status ? { status } : {}),
    ...(sort ? { sort } : {}),
    limit: intFlag(args, 'limit', 1, LIMITS.maxListLimit) ?? 50,
  });
  if (args.flags.has('json')) {
    io.out(`${JSON.stringify({ issues: page.items, nextCursor: page.nextCursor })}\n`);
    return ExitCode.ok;
  }
  if (page.items.length === 0) {
    const where = period.scope.since === undefined ? '' : ` in the ${period.label}`;
    io.out(status ? `no ${status} issues${where}\n` : where ? `no issues${where}\n` : 'no issues: an error that happens in a run becomes one\n');
    return ExitCode.ok;
  }
  if (period.scope.since === undefined) {
    const rows = page.items.map((i) => [i.id, statusWords(i), String(i.occurrences), String(i.failures), String(i.runs), when(i.lastSeen), i.title]);
    io.out(table([['ISSUE', 'STATUS', 'EVENTS', 'FAILURES', 'RUNS', 'LAST SEEN', 'TITLE'], ...rows]));
    return ExitCode.ok;
  }
  io.out(`events and failures in the ${period.label}; change: events against the ${period.label.replace(/^last /, '')} before\n`);
  const rows = page.items.map((i) => [
    i.id,
    statusWords(i),
    String(i.period.events),
    String(i.period.failures),
    changeWords(i.period),
    String(i.runs),
    when(i.lastSeen),
    i.title,
  ]);
  io.out(table([['ISSUE', 'STATUS', 'EVENTS', 'FAILURES', 'CHANGE', 'RUNS', 'LAST SEEN', 'TITLE'], ...rows]));
  return ExitCode.ok;
}

function ignoreOf(args: ParsedArgs): { forMs?: number; untilCount?: number; untilEscalating?: boolean; words: string } {
  const given = ['for', 'until-count', 'until-escalating'].filter((n) => args.flags.has(n));
  if (given.length > 1) throw new UsageError('give at most one of --for, --until-count and --until-escalating');
  const forText = stringFlag(args, 'for');
  if (forText !== undefined) {
    const ms = parseAge(forText, IGNORE_BOUNDS.maxForMs);
    if (ms === null || ms < IGNORE_BOUNDS.minForMs) throw new UsageError(`--for must be a duration of at least a minute like 30m, 24h or 7d, got "${forText}"`);
    if (ms === Infinity) throw new UsageError(`--for must be at most 365d (a year), got "${forText}"`);
    return { forMs: ms, words: ` for ${forText}` };
  }
  const count = intFlag(args, 'until-count', 1, IGNORE_BOUNDS.maxCount);
  if (count !== undefined) return { untilCount: count, words: ` until ${count} more occurrence${count === 1 ? '' : 's'}` };
  if (args.flags.has('until-escalating')) return { untilEscalating: true, words: ' until it escalates' };
  return { words: '' };
}

async function oneIssue(history: CommandHistory, book: IssueBook, sub: Exclude<Subcommand, 'show'>, id: string, args: ParsedArgs, io: CliIo): Promise<number> {
  const json = args.flags.has('json');
  if (sub === 'runs') return issueRuns(history, book, id, json, io);
  const ignore = sub === 'ignore' ? ignoreOf(args) : null;
  const { words, ...condition } = ignore ?? { words: '' };
  const { issue, changed } = await book.setStatus({ id, action: sub, by: 'cli', ...condition });
  if (json) {
    io.out(`${JSON.stringify({ changed, issue })}\n`);
    return ExitCode.ok;
  }
  if (!changed) {
    io.out(`${issue.id} is already ${issue.status} · ${issue.title}\n`);
    return ExitCode.ok;
  }
  const done = sub === 'resolve' ? 'resolved' : sub === 'ignore' ? 'ignored' : 'reopened';
  io.out(`${done} ${issue.id}${words} · ${issue.title}\n`);
  return ExitCode.ok;
}

async function issueRuns(history: CommandHistory, book: IssueBook, id: string, json: boolean, io: CliIo): Promise<number> {
  const issue = await book.get(id);
  const page = await history.issueRuns(issue.id, 100);
  if (json) {
    io.out(`${JSON.stringify({ issue: issue.id, runs: page.runs, nextCursor: page.nextCursor })}\n`);
    return ExitCode.ok;
  }
  io.out(`${issue.runs} run${issue.runs === 1 ? '' : 's'} hit ${issue.id} · ${issue.title}\n`);
  const rows = page.runs.map((r) => [r.id, r.status, r.flowName, when(r.startedAt), r.endingCode ?? '']);
  if (rows.length > 0) io.out(table([['RUN', 'STATUS', 'FLOW', 'STARTED', 'ENDING ERROR'], ...rows]));
  return ExitCode.ok;
}
