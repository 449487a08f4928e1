import { WorkspaceMode } from '../flow/agent-work.js';
import { formatDiagnostic } from '../flow/ast.js';
import type { EventSink } from '../engine/events.js';
import type { RunResult } from '../engine/run.js';
import type { ResumePoint } from '../engine/resume.js';
import type { HivewatchStore } from '../store/index.js';
import { bundledExamplesDir, appFlowsDirOf } from '../service/flow-keys.js';
import { createHivewatchService } from '../service/service.js';
import { openCliStore } from './database.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { ExitCode, type CliIo } from './io.js';
import { ProgressPrinter } from './progress.js';
import { journalLastEvents } from './journal-wait.js';
import { journalRetryDelays, journalWaitMs } from '../service/journal-env.js';

export interface RunTarget {
  file: string;
  /** The database to journal into; opened from --db / HIVEWATCH_DB / the default path when absent. */
  store?: HivewatchStore;
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

export function exitCodeOf(result: RunResult): number {
  if (result.unjournaled) return ExitCode.failed;
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
  const maxSteps = intFlag(args, 'max-steps', 1) ?? 100;
  const concurrency = intFlag(args, 'concurrency', 1) ?? 4;
  const workspace = workspaceFlag(args);
  // Read before anything runs: a bad value is the operator's to fix, not a failed run.
  const retryDelays = journalRetryDelays(io.env);
  const waitMs = journalWaitMs(io.env);
  const store = target.store ?? (await openCliStore(args, io));
  const service = await createHivewatchService({
    store,
    examplesDir: bundledExamplesDir(),
    userFlowsDir: appFlowsDirOf(store.location),
    clock: args.flags.has('virtual-clock') ? 'virtual' : 'real',
    journalRetryDelaysMs: retryDelays,
  });
  let printer: ProgressPrinter | null = null;
  let runId: string | null = null;
  // JSON lines are printed once committed, so a line printed is a line journaled, even when the
  // process is killed right after; the human progress shows events as they happen.
  const unsubscribe = json
    ? store.subscribe((batch) => {
        // Until the run's id is known, the only run this service hosts commits its first events.
        for (const event of batch) if (runId === null || event.runId === runId) io.out(`${JSON.stringify(event)}\n`);
      })
    : () => undefined;
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    if (runId !== null) void service.cancelRun({ runId, reason: 'interrupted from the terminal (SIGINT)' }).catch(() => undefined);
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
      return ExitCode.invalid;
    }
    if (started.kind === 'refused') {
      io.err(`hivewatch resume: ${started.message}\n`);
      return ExitCode.failed;
    }
    runId = started.runId;
    process.on('SIGINT', onSigint);
    const result = await started.done;
    return exitCodeOf(result);
  } finally {
    process.off('SIGINT', onSigint);
    (printer as ProgressPrinter | null)?.stop();
    await journalLastEvents(service, io, runId, { waitMs });
    await service.close({ timeoutMs: 0 });
    unsubscribe();
    if (target.store === undefined) await store.close();
  }
}
