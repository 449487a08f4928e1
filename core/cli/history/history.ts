import type { CommandErrorFilters, CommandHistory } from '../../service/history/command-history.js';
import { printableHistoryLocation } from '../../service/history/open.js';
import { endingWords, type RunRecord } from '../../service/history/run-records.js';
import { LIMITS } from '../../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ageFlag, openCliCommandHistory, parseAge } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';
import { FlowKeyError, FlowKeys, flowFoldersForDatabase } from '../../service/flows/keys.js';
import { runFlow } from '../run/run.js';
import { FAILURE_DIMENSIONS, RUN_LIST_STATUSES, type ErrorDimension, type RunListStatus } from '../../service/api.js';
import type { FailureDimension } from '../../service/api-errors.js';
import { ApiError } from '../../common/api-errors.js';
import { EXTERNAL_FLOW_PREFIX } from '../../otel/mapping.js';
import { silenceWords, type TelemetrySilence } from '../../common/telemetry-silence.js';

/** `hivewatch runs | errors | replay | resume | retry | prune`: the history in the database. */

type FailureCounts = Awaited<ReturnType<CommandHistory['api']['failureCounts']>>;

const DIMENSIONS: readonly ErrorDimension[] = ['category', 'origin', 'code', 'flow', 'handled', 'run', 'task'];

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n') + '\n';
}

const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));

function since(args: ParsedArgs, now: number): number | undefined {
  const raw = stringFlag(args, 'since');
  if (raw === undefined) return undefined;
  return now - ageFlag(raw, '--since');
}

/** `--status a,b`: each one a run-list status, or a usage error that lists them. */
function statusFilter(args: ParsedArgs): RunListStatus[] | undefined {
  const raw = stringFlag(args, 'status');
  if (raw === undefined) return undefined;
  const statuses = raw.split(',').map((s) => s.trim());
  const bad = statuses.find((s) => !(RUN_LIST_STATUSES as readonly string[]).includes(s));
  if (bad !== undefined) throw new UsageError(`--status must be one or more (comma-separated) of ${RUN_LIST_STATUSES.join(', ')}, got "${bad}"`);
  return statuses as RunListStatus[];
}

/** Any filter narrows the list: an empty answer then means no match, not an empty history. */
const RUN_FILTERS = ['status', 'flow', 'text', 'since'] as const;

export async function runsCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const history = await openCliCommandHistory(args, io);
  try {
    const now = Date.now();
    const page = await history.runRecords(
      {
        status: statusFilter(args),
        flow: stringFlag(args, 'flow'),
        text: stringFlag(args, 'text'),
        since: since(args, now),
        limit: intFlag(args, 'limit', 1, LIMITS.maxListLimit) ?? 50,
      },
      now,
    );
    if (args.flags.has('json')) {
      io.out(`${JSON.stringify({ runs: page.runs, nextCursor: page.nextCursor })}\n`);
      return ExitCode.ok;
    }
    if (page.runs.length === 0 && RUN_FILTERS.some((f) => args.flags.has(f))) {
      io.out(
        `no run matches ${RUN_FILTERS.filter((f) => args.flags.has(f))
          .map((f) => `--${f} ${String(args.flags.get(f))}`)
          .join(' ')}\n`,
      );
      return ExitCode.ok;
    }
    if (page.runs.length === 0) {
      io.out('no runs yet: start one with `hivewatch run examples/01-happy-path.prose`\n');
      return ExitCode.ok;
    }
    const rows = page.runs.map((r) => [
      r.id,
      withSilence(statusOfRun(r), r.telemetrySilence),
      r.flowName,
      when(r.startedAt),
      stepOfRun(r),
      count(r.attemptCount, 'attempt'),
      count(r.errorCount, 'error'),
      errorOfRun(r),
    ]);
    io.out(table([['RUN', 'STATUS', 'FLOW', 'STARTED', 'STEP', 'ATTEMPTS', 'ERRORS', 'ERROR'], ...rows]));
    return ExitCode.ok;
  } finally {
    await history.close();
  }
}

/**
 * The step reached of the steps the flow takes, as the window says it (renderer/lib/step-words.ts):
 * "3 of 5", "3 of 5–7" when catch blocks may add steps, the step alone when the count is unknown.
 */
function stepOfRun(run: RunRecord): string {
  if (run.flowSteps === null) return String(run.currentStep);
  const most = run.flowStepsMost ?? run.flowSteps;
  return most === run.flowSteps ? `${run.currentStep} of ${run.flowSteps}` : `${run.currentStep} of ${run.flowSteps}–${most}`;
}

const withSilence = (status: string, silence: TelemetrySilence | null): string => (silence ? `${status}, ${silenceWords(silence)}` : status);

/**
 * A run waiting out a usage limit says until when (its JSON carries `waitingUntil`); an external
 * session stopped by its limit says what ends the stop, since Hivewatch does not resume it (docs/otel.md).
 */
function statusOfRun(run: RunRecord): string {
  if (run.approvalSince !== null) return `${run.status}, waiting for approval of ${run.approvalLabel ?? 'a tool'} since ${when(run.approvalSince)} UTC`;
  if (run.waitingUntil === null) return run.status;
  if (run.flow.startsWith(EXTERNAL_FLOW_PREFIX))
    return `${run.status}, stopped by the usage limit until ${when(run.waitingUntil)} UTC (it continues when the agent sends telemetry again)`;
  return `${run.status}, waiting for the usage limit to reset at ${when(run.waitingUntil)} UTC`;
}

/**
 * The error a run row shows: why a failed run failed (its root cause first, then how the run gave
 * up on it: "RUNTIME_TIMEOUT · Request timed out. — gave up after 3 attempts", docs/semantics.md
 * F1), the code that ended a cancelled or interrupted run, the newest occurrence for a live one,
 * none for a run that completed.
 */
function errorOfRun(run: RunRecord): string {
  const ending = run.endingError;
  // A live run shows its newest occurrence; an ended run that did not fail names no code, since
  // its errors were all handled (or it was cancelled) and nothing ended it.
  const ended = run.status === 'completed' || run.status === 'cancelled' || run.status === 'failed';
  if (ending === null) return ended ? '' : (run.lastErrorCode ?? '');
  if (run.status !== 'failed') return ending.code;
  // One table row per run: a message's line breaks would start new rows.
  return endingWords(ending).replace(/\s+/g, ' ');
}

/** The filters the operator gave: the API's input names no filter it was not given. */
function definedOnly<T extends object>(filters: T): T {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as T;
}

/** `errors --failures`: one failure per run that ended failed, by its ending error (or flow). */
async function failuresOutput(history: CommandHistory, args: ParsedArgs, filters: CommandErrorFilters & { by: FailureDimension }, io: CliIo): Promise<void> {
  const counts: FailureCounts = await history.api.failureCounts(definedOnly(filters));
  if (args.flags.has('json')) {
    io.out(`${JSON.stringify({ total: counts.total, rows: counts.rows })}\n`);
    return;
  }
  if (counts.total === 0) {
    io.out('no failures recorded\n');
    return;
  }
  const name = (r: FailureCounts['rows'][number]): string => (r.label && r.label !== r.key ? `${r.key} (${r.label})` : r.key);
  const rows =
    filters.by === 'code'
      ? [['CODE', 'ROOT CAUSE', 'FAILURES'], ...counts.rows.map((r) => [r.key, r.rootCode ?? r.key, String(r.count)])]
      : [[filters.by === 'rootCode' ? 'ROOT CAUSE' : filters.by.toUpperCase(), 'FAILURES'], ...counts.rows.map((r) => [name(r), String(r.count)])];
  io.out(table(rows));
  io.out(`${counts.total} failure${counts.total === 1 ? '' : 's'} (one per run that ended failed)\n`);
}

export async function errorsCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const history = await openCliCommandHistory(args, io);
  try {
    const filters = {
      flow: stringFlag(args, 'flow'),
      category: stringFlag(args, 'category'),
      origin: stringFlag(args, 'origin'),
      code: stringFlag(args, 'code'),
      since: since(args, Date.now()),
      limit: intFlag(args, 'limit', 1, LIMITS.maxListLimit),
    };
    const json = args.flags.has('json');
    if (args.flags.has('failures')) {
      if (args.flags.has('groups')) throw new UsageError('--failures and --groups are two views; give one');
      const by = (stringFlag(args, 'by') ?? 'code') as FailureDimension;
      if (!FAILURE_DIMENSIONS.includes(by)) throw new UsageError(`--by must be one of ${FAILURE_DIMENSIONS.join(', ')} with --failures, got "${by}"`);
      await failuresOutput(history, args, { by, ...filters }, io);
      return ExitCode.ok;
    }
    if (args.flags.has('groups')) {
      const groups = await history.errorGroups(filters);
      if (json) io.out(`${JSON.stringify(groups)}\n`);
      else if (groups.length === 0) io.out('no errors recorded\n');
      else
        io.out(
          table([['COUNT', 'CODE', 'ORIGIN', 'LAST SEEN', 'MESSAGE'], ...groups.map((g) => [String(g.count), g.code, g.origin, when(g.lastSeen), g.template])]),
        );
      return ExitCode.ok;
    }
    const by = (stringFlag(args, 'by') ?? 'category') as ErrorDimension;
    if (!DIMENSIONS.includes(by)) throw new UsageError(`--by must be one of ${DIMENSIONS.join(', ')}, got "${by}"`);
    const counts = await history.errorCounts({ by, ...filters });
    if (json) io.out(`${JSON.stringify(counts)}\n`);
    else if (counts.length === 0) io.out('no errors recorded\n');
    else io.out(table([[by.toUpperCase(), 'COUNT'], ...counts.map((c) => [c.label && c.label !== c.key ? `${c.key} (${c.label})` : c.key, String(c.count)])]));
    return ExitCode.ok;
  } catch (error) {
    // A filter the API's rules refuse (`--category weather`, `--code timeout`) is the operator's to fix.
    if (error instanceof ApiError && error.apiCode === 'invalid_input') throw new UsageError(`--${error.message}`);
    throw error;
  } finally {
    await history.close();
  }
}

export async function replayCommand(args: ParsedArgs, io: CliIo, runId: string): Promise<number> {
  const history = await openCliCommandHistory(args, io);
  try {
    const report = await history.replayRun(runId);
    if (report === null) {
      io.err(`hivewatch replay: no such run "${runId}" in ${printableHistoryLocation(history.location)}\n`);
      return ExitCode.failed;
    }
    if (args.flags.has('json')) io.out(`${JSON.stringify(report)}\n`);
    else if (report.ok) io.out(`${runId}: replay matches the stored projections (${report.events} events)\n`);
    else io.out(`${runId}: replay differs from the stored projections:\n${report.diffs.map((d) => `  ${d}`).join('\n')}\n`);
    return report.ok ? ExitCode.ok : ExitCode.failed;
  } finally {
    await history.close();
  }
}

/** `resume` continues from the last checkpoint; `retry` starts the flow fresh. Both link the new run. */
export async function continueCommand(mode: 'resume' | 'retry', args: ParsedArgs, io: CliIo, runId: string): Promise<number> {
  const history = await openCliCommandHistory(args, io);
  try {
    const run = await history.runToContinue(runId);
    if (run === null) {
      io.err(`hivewatch ${mode}: no run "${runId}" in ${history.location}\n`);
      return ExitCode.failed;
    }
    if (mode === 'resume' && !['failed', 'cancelled', 'interrupted'].includes(run.status)) {
      io.err(`hivewatch resume: run ${runId} is ${run.status}; only failed, cancelled or interrupted runs can be resumed\n`);
      return ExitCode.failed;
    }
    let file: string;
    try {
      // The run's key is resolved against the folders of ITS database, never the current directory.
      file = (await new FlowKeys(flowFoldersForDatabase(history.location)).resolve(run.flow)).path;
    } catch (error) {
      if (!(error instanceof FlowKeyError)) throw error;
      io.err(`hivewatch ${mode}: cannot find the flow of run ${runId}: ${error.message}\n`);
      return ExitCode.failed;
    }
    // runFlow refuses a resume whose engine rules or flow text changed (resume.ts resumeProblem).
    const resume = mode === 'resume' ? await history.resumePoint(runId) : null;
    return await runFlow(
      {
        file,
        history,
        resume,
        retryOf: mode === 'retry' ? runId : null,
        agent: run.defaultAgent,
      },
      args,
      io,
    );
  } finally {
    await history.close();
  }
}

export async function pruneCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const raw = stringFlag(args, 'older-than');
  if (raw === undefined || parseAge(raw) === null) throw new UsageError('prune needs --older-than AGE, e.g. --older-than 30d');
  const age = ageFlag(raw, '--older-than');
  const history = await openCliCommandHistory(args, io);
  try {
    const report = await history.prune(age);
    if (args.flags.has('json')) io.out(`${JSON.stringify(report)}\n`);
    else
      io.out(
        `pruned ${report.runs} run(s), ${report.events} event(s), ${report.errors} error(s) that ended before ${when(report.cutoff)}${report.keptForResume ? `; kept ${report.keptForResume} needed by resumed runs` : ''}\n`,
      );
    return ExitCode.ok;
  } finally {
    await history.close();
  }
}
