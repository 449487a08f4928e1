import { WorkspaceMode } from '../../flow/plan/agent-work.js';
import { formatDiagnostic } from '../../flow/syntax/ast.js';
import { parseDuration } from '../../base/duration.js';
import type { EventSink } from '../../base/events.js';
import type { ResumePoint } from '../../base/resume-point.js';
import { bundledExamplesDir, appFlowsDirOf } from '../../service/flows/keys.js';
import type { CommandHistory } from '../../service/history/command-history.js';
import type { HostedRunResult } from '../../service/service.js';
import { openCliCommandHistory } from '../database.js';
import { LIMITS } from '../../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ExitCode, type CliIo } from '../io.js';
import { ProgressPrinter } from './progress.js';
import { journalLastEvents } from './journal-wait.js';
import { journalRetryDelays, journalWaitMs } from '../../service/runs/journal-env.js';

export interface RunTarget {
  file: string;
  /** The history to journal into; opened from --db / HIVEWATCH_DB / the default path when absent. */
  history?: CommandHistory;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** The agent of sessions that name none, when no --agent is given: a resumed or retried run keeps its own (as the window does). */
  agent?: string | null;
}

function workspaceFlag(args: ParsedArgs): WorkspaceMode | null {
  const mode = stringFlag(args, 'workspace');
  if (mode === undefined) return null;
  if (!(Object.values(WorkspaceMode) as string[]).includes(mode)) {
    throw new UsageError(`--workspace must be one of ${Object.values(WorkspaceMode).join(', ')}, got "${mode}"`);
  }
  return mode as WorkspaceMode;
}

/** `--kill-grace 30s`: the SIGTERM → SIGKILL grace of the run's agents, or undefined for the default. */
function killGraceFlag(args: ParsedArgs): number | undefined {
  const text = stringFlag(args, 'kill-grace');
  if (text === undefined) return undefined;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new UsageError(`--kill-grace: ${parsed.message}`);
  return parsed.ms;
}

function exitCodeOf(result: HostedRunResult): number {
  if (result.unjournaled || result.takenOver !== undefined) return ExitCode.failed;
  if (result.status === 'completed') return ExitCode.ok;
  if (result.status === 'cancelled') return ExitCode.cancelled;
  return ExitCode.failed;
}

/**
 * `hivewatch run <flow>`: check, then execute with live progress or JSON lines; SIGINT cancels.
 * The run is hosted by a Hivewatch service like the app's (one composition root), so the window
 * of any process on the same database sees it live and can cancel it or skip its backoff.
 */
export async function runFlow(target: RunTarget, args: ParsedArgs, io: CliIo): Promise<number> {
  const json = args.flags.has('json');
  const maxSteps = intFlag(args, 'max-steps', 1, LIMITS.maxSteps) ?? 100;
  const concurrency = intFlag(args, 'concurrency', 1, LIMITS.maxConcurrency) ?? 4;
  const workspace = workspaceFlag(args);
  const killGraceMs = killGraceFlag(args);
  // Read before anything runs: a bad value is the operator's to fix, not a failed run.
  const retryDelays = journalRetryDelays(io.env);
  const waitMs = journalWaitMs(io.env);
  const history = target.history ?? (await openCliCommandHistory(args, io));
  const service = await history.host({
    ...(killGraceMs !== undefined ? { killGraceMs } : {}),
    examplesDir: bundledExamplesDir(),
    userFlowsDir: appFlowsDirOf(history.location),
    clock: args.flags.has('virtual-clock') ? 'virtual' : 'real',
    // Every host watches the others: a dead one's runs are interrupted, and a run of this one that
    // another host interrupted while this process was not heard from is stopped here.
    watchHosts: true,
    journalRetryDelaysMs: retryDelays,
    // A command line process delivers no alerts (a hanging receiver would hold its exit); it queues
    // those of the issues it announces, and a serving host posts them (docs/triage.md "Alerts").
    alerts: false,
  });
  let printer: ProgressPrinter | null = null;
  let runId: string | null = null;
  // JSON lines are printed once committed, so a line printed is a line journaled, even when the
  // process is killed right after; the human progress shows events as they happen.
  const unsubscribe = json
    ? history.onCommitted((batch) => {
        // Until the run's id is known, the only run this service hosts commits its first events.
        for (const event of batch) if (runId === null || event.runId === runId) io.out(`${JSON.stringify(event)}\n`);
      })
    : () => undefined;
  // Ctrl-C cancels (rules 9–11); a second one forces it (rule 18): the run's agents get SIGKILL at
  // once and the run ends cancelled, so the command still exits 3 with the journal complete. A
  // third changes nothing.
  let interrupts = 0;
  let runEnded = false;
  const stopWaiting = new AbortController();
  const onSigint = (): void => {
    if (runEnded) return stopWaiting.abort();
    interrupts++;
    if (runId === null || interrupts > 2) return;
    const reason = interrupts === 1 ? 'interrupted from the terminal (SIGINT)' : 'interrupted again from the terminal (SIGINT): forced';
    if (interrupts === 2) io.err('hivewatch: cancelling by force: the agents still running get SIGKILL now\n');
    void service.cancelRun({ runId, reason }).catch(() => undefined);
  };
  try {
    const started = await service.runFile({
      file: target.file,
      repo: stringFlag(args, 'repo') ?? null,
      workspace,
      agent: stringFlag(args, 'agent') ?? target.agent ?? io.env.HIVEWATCH_AGENT ?? null,
      maxSteps,
      concurrency,
      resume: target.resume ?? null,
      retryOf: target.retryOf ?? null,
      observe: (clock): EventSink => {
        printer = json ? null : new ProgressPrinter(io.stdout, () => clock.now(), maxSteps);
        const shown = printer;
        return { append: (event) => shown?.handle(event), flush: () => Promise.resolve() };
      },
    });
    if (started.kind === 'invalid') {
      for (const d of started.diagnostics) io.err(`${formatDiagnostic(d)}\n`);
      io.err(`hivewatch run: the flow does not check; recorded as failed run ${started.runId} (USER_INVALID_FLOW)\n`);
      return ExitCode.invalid;
    }
    if (started.kind === 'refused') {
      io.err(`hivewatch resume: ${started.message}\n`);
      return ExitCode.failed;
    }
    runId = started.runId;
    process.on('SIGINT', onSigint);
    const result = await started.done;
    if (result.takenOver !== undefined) io.err(`hivewatch: ${result.takenOver}\n`);
    return exitCodeOf(result);
  } finally {
    try {
      (printer as ProgressPrinter | null)?.stop();
      // The run has ended: a Ctrl-C from now on stops waiting for a database that is away.
      runEnded = true;
      await journalLastEvents(service, io, runId, { waitMs, signal: stopWaiting.signal });
      await service.close({ timeoutMs: 0 });
      unsubscribe();
      if (target.history === undefined) await history.close();
    } finally {
      // Only now: a Ctrl-C while the journal is flushed and closed must not kill the process half-way.
      process.off('SIGINT', onSigint);
    }
  }
}
