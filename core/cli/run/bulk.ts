import { createInterface } from 'node:readline/promises';
import type { BulkAction, BulkResult, BulkRunsInput, RunStatus } from '../../service/api.js';
import { everyRunOf, narrowingKeys } from '../../service/runs/bulk-filter.js';
import { ApiError } from '../../common/api-errors.js';
import { appFlowsDirOf, bundledExamplesDir } from '../../service/flows/keys.js';
import { FlowRefError, flowRefScope, resolveFlowRef } from '../../service/flows/ref.js';
import type { HivewatchService } from '../../service/service.js';
import { stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { parseWhere } from './bulk-where.js';
import { openCliCommandHistory } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';

/**
 * `hivewatch cancel|retry|resume --where QUERY | RUN_ID… [--yes] [--json]`:
 * the window's bulk actions from a terminal, through the same service method (`bulkRuns`). More
 * than one run needs `--yes` or a "y" typed at the prompt; without a terminal to ask on, nothing
 * is done and the hint says how. Retried and resumed runs are hosted by this process, which waits
 * for them to end (Ctrl-C cancels them), as `hivewatch retry ID` does for one.
 */

type CliBulkAction = Extract<BulkAction, 'cancel' | 'retry' | 'resume'>;

const DONE_WORD: Record<CliBulkAction, string> = { cancel: 'cancelled', retry: 'retried', resume: 'resumed' };
const VERB: Record<CliBulkAction, string> = { cancel: 'Cancel', retry: 'Retry', resume: 'Resume' };

/** Whether `retry` / `resume` were called the bulk way (else: one run, in the foreground, as before). */
export function isBulkCall(args: ParsedArgs): boolean {
  return args.flags.has('where') || args.flags.has('yes') || args.flags.has('all') || args.positionals.length > 1;
}

/** The statuses `--all` alone takes: those the action can act on (the others would only be refused). */
const ALL_OF: Record<CliBulkAction, RunStatus[]> = {
  cancel: ['queued', 'running'],
  retry: ['failed', 'cancelled', 'interrupted'],
  resume: ['failed', 'cancelled', 'interrupted'],
};

/** Options of a single `retry ID` / `resume ID`; the bulk form would silently drop them. */
const SINGLE_RUN_OPTIONS = ['virtual-clock', 'max-steps', 'concurrency', 'agent', 'repo', 'workspace', 'kill-grace'] as const;

function refuseSingleRunOptions(action: CliBulkAction, args: ParsedArgs): void {
  const given = SINGLE_RUN_OPTIONS.find((name) => args.flags.has(name));
  if (given === undefined) return;
  throw new UsageError(`--${given} applies to one run (hivewatch ${action} RUN_ID --${given} …); the runs of a bulk ${action} keep their original's settings`);
}

type Target = Pick<BulkRunsInput, 'runIds' | 'where' | 'all'>;

/**
 * Run ids, or a filter that narrows: a filter of statuses alone would take every run of them, so
 * it needs `--all`, and says so (as does `--all` alone: every run the action can take).
 */
function targetOf(action: CliBulkAction, args: ParsedArgs): Target {
  const where = stringFlag(args, 'where');
  const all = args.flags.has('all');
  if (args.positionals.length > 0) {
    if (where !== undefined || all) throw new UsageError(`give run ids or ${where !== undefined ? '--where' : '--all'}, not both`);
    return { runIds: args.positionals };
  }
  if (where === undefined) {
    if (all) return { where: { status: ALL_OF[action] }, all: true };
    throw new UsageError("expected run ids or --where 'status=running&flow=…'");
  }
  const filter = parseWhere(where, Date.now());
  if (!all && narrowingKeys(filter).length === 0) {
    throw new UsageError(
      `--where '${where}' names no flow, text, error or time, so it would ${action} ${everyRunOf(filter.status)}; add --all if that is what you mean`,
    );
  }
  return all ? { where: filter, all: true } : { where: filter };
}

/**
 * The filter's `flow` in its one form, read from this directory (core/service/flows/ref.ts) against the runs the
 * service counts; a usage error when no run can have it.
 */
async function withResolvedFlow(target: Target, service: HivewatchService, userFlowsDir: string | null): Promise<Target> {
  const flow = target.where?.flow;
  if (flow === undefined) return target;
  const scope = flowRefScope(service, { examplesDir: bundledExamplesDir(), userFlowsDir }, process.cwd());
  try {
    return { ...target, where: { ...target.where, flow: await resolveFlowRef(flow, scope) } };
  } catch (error) {
    if (error instanceof FlowRefError) throw new UsageError(`--where: flow: ${error.message}`);
    throw error;
  }
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function summary(action: CliBulkAction, result: BulkResult): string {
  return `${result.done} ${result.dryRun ? `would be ${DONE_WORD[action]}` : DONE_WORD[action]}, ${result.refused} refused`;
}

function printResults(action: CliBulkAction, result: BulkResult, io: CliIo): void {
  for (const r of result.results) {
    if (r.outcome === 'refused') io.out(`  refused    ${r.runId}: ${r.message ?? ''}\n`);
    else
      io.out(
        `  ${(result.dryRun ? action : DONE_WORD[action]).padEnd(10)} ${r.runId}${r.newRunId ? ` → ${r.newRunId}` : ''}${r.message ? ` (${r.message})` : ''}\n`,
      );
  }
  io.out(`${summary(action, result)}\n`);
}

async function askYes(io: CliIo, question: string): Promise<boolean> {
  const stdin = io.stdin;
  if (!stdin) return false;
  const prompt = createInterface({ input: stdin, output: io.stdout, terminal: false });
  try {
    const answer = await prompt.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

/**
 * Previews, asks when it must, then acts. Null when nothing is to be done (the exit code is
 * then the one returned in `exit`).
 */
async function confirmAndRun(
  action: CliBulkAction,
  args: ParsedArgs,
  io: CliIo,
  service: HivewatchService,
  target: Target,
): Promise<BulkResult | { exit: number }> {
  const json = args.flags.has('json');
  const yes = args.flags.has('yes');
  const reason = action === 'cancel' ? { reason: 'cancelled from the command line (bulk)' } : {};
  // With --yes the filter is resolved when the action runs; otherwise the operator confirms the runs the preview named.
  if (yes || (target.runIds?.length ?? 2) <= 1) return service.bulkRuns({ action, ...target, ...reason });
  const preview = await service.bulkRuns({ action, ...target, dryRun: true });
  if (preview.matched === 0) {
    if (json) io.out(`${JSON.stringify(preview)}\n`);
    else io.out(`no run matches; nothing to ${action}\n`);
    return { exit: ExitCode.ok };
  }
  if (preview.matched > 1) {
    if (json) io.out(`${JSON.stringify(preview)}\n`);
    else printResults(action, preview, io);
    if (!io.stdin?.isTTY) {
      io.err(
        `hivewatch ${action}: ${preview.matched} runs match and stdin is not a terminal, so nothing was asked and nothing was done; add --yes to ${action} them\n`,
      );
      return { exit: ExitCode.usage };
    }
    if (!(await askYes(io, `${VERB[action]} ${plural(preview.done, 'run')} (${preview.refused} refused)? [y/N] `))) {
      io.err(`hivewatch ${action}: nothing was done\n`);
      return { exit: ExitCode.failed };
    }
  }
  return service.bulkRuns({ action, runIds: preview.results.map((r) => r.runId), ...reason });
}

/** Waits for the runs this process started (retry, resume); Ctrl-C cancels them. Their endings by id. */
async function waitForNewRuns(service: HivewatchService, result: BulkResult, io: CliIo, json: boolean): Promise<Record<string, string>> {
  const started = result.results.flatMap((r) => (r.newRunId ? [r.newRunId] : []));
  if (started.length === 0) return {};
  if (!json) io.err(`waiting for ${plural(started.length, 'new run')} to end (Ctrl-C cancels them)\n`);
  const onSigint = (): void =>
    void service.bulkRuns({ action: 'cancel', runIds: started, reason: 'interrupted from the terminal (SIGINT)' }).catch(() => undefined);
  process.on('SIGINT', onSigint);
  try {
    const endings = await Promise.all(started.map(async (runId) => [runId, (await service.whenFinished(runId))?.status ?? 'unknown'] as const));
    return Object.fromEntries(endings);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export async function bulkCommand(action: CliBulkAction, args: ParsedArgs, io: CliIo): Promise<number> {
  refuseSingleRunOptions(action, args);
  const given = targetOf(action, args);
  const json = args.flags.has('json');
  const history = await openCliCommandHistory(args, io);
  const userFlowsDir = appFlowsDirOf(history.location);
  const service = await history.host({
    examplesDir: bundledExamplesDir(),
    userFlowsDir,
    // Retried and resumed runs run here, like `hivewatch retry ID`: this host watches the others.
    watchHosts: action !== 'cancel',
    // A command line process delivers no alerts (a hanging receiver would hold its exit); it queues
    // those of the issues it announces, and a serving host posts them (docs/triage.md "Alerts").
    alerts: false,
  });
  // A cancel of another process's run waits for its answer on unref'd timers (they never hold a
  // server open); here nothing else keeps the process alive meanwhile, so this does.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const target = await withResolvedFlow(given, service, userFlowsDir);
    const outcome = await confirmAndRun(action, args, io, service, target);
    if ('exit' in outcome) return outcome.exit;
    const endings = await waitForNewRuns(service, outcome, io, json);
    const ended = Object.values(endings);
    if (json) io.out(`${JSON.stringify(ended.length > 0 ? { ...outcome, newRunEndings: endings } : outcome)}\n`);
    else {
      printResults(action, outcome, io);
      if (ended.length > 0)
        io.out(
          `new runs: ${(['completed', 'failed', 'cancelled', 'interrupted'] as const).map((s) => `${ended.filter((e) => e === s).length} ${s}`).join(', ')}\n`,
        );
    }
    return outcome.refused === 0 && ended.every((s) => s === 'completed') ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    // The service's 400 on a --where value (a status that does not exist) is the operator's to fix.
    if (error instanceof ApiError && error.status === 400) throw new UsageError(error.message.replace(/^where\./, '--where: '));
    throw error;
  } finally {
    clearInterval(keepAlive);
    await service.close({ timeoutMs: 10_000 });
    await history.close();
  }
}
