import { WorkspaceMode } from '../flow/agent-work.js';
import { formatDiagnostic } from '../flow/ast.js';
import { resolveRunRepo } from '../workspace/repo.js';
import { sweepLeftoverWorktrees } from '../workspace/sweep.js';
import { checkFlowFile } from '../flow/check.js';
import { RealClock, VirtualClock, type Clock } from '../engine/clock.js';
import type { EventSink } from '../engine/events.js';
import { FlowRun, type RunResult } from '../engine/run.js';
import { FanoutSink } from '../engine/sinks.js';
import { resumeProblem, type ResumePoint } from '../engine/resume.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { createDurableSink, type HivewatchStore } from '../store/index.js';
import { readFile } from 'node:fs/promises';
import { checkFlow } from '../flow/check.js';
import type { CheckResult } from '../flow/plan.js';
import { FlowKeys, flowFoldersForDatabase } from '../service/flow-keys.js';
import { databasePathOf, openCliStore } from './database.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { ExitCode, type CliIo } from './io.js';
import { ProgressPrinter } from './progress.js';

export interface RunTarget {
  file: string;
  /** The database to journal into; opened from --db / HIVEWATCH_DB / the default path when absent. */
  store?: HivewatchStore;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** Called once the run exists, before it starts: e.g. to record its id. */
  onRun?: (run: FlowRun) => void;
}

/** Checks the file under the key the run will record, so diagnostics and journal agree. */
async function readAndCheck(file: string, key: string): Promise<CheckResult> {
  if (key === file) return checkFlowFile(file);
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch {
    return checkFlowFile(file);
  }
  return checkFlow(source, key);
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

/** `hivewatch run <flow>`: check, then execute with live progress or JSON lines; SIGINT cancels. */
export async function runFlow(target: RunTarget, args: ParsedArgs, io: CliIo): Promise<number> {
  const key = new FlowKeys(flowFoldersForDatabase(target.store?.path ?? databasePathOf(args, io))).keyOf(target.file);
  const checked = await readAndCheck(target.file, key);
  if (!checked.ok || checked.plan === null) {
    for (const d of checked.diagnostics) io.err(`${formatDiagnostic(d)}\n`);
    return ExitCode.invalid;
  }
  const resumeRefusal = target.resume ? resumeProblem(target.resume, checked.plan.program.source) : null;
  if (resumeRefusal !== null) {
    io.err(`hivewatch resume: ${resumeRefusal}\n`);
    return ExitCode.failed;
  }
  const json = args.flags.has('json');
  const clock: Clock = args.flags.has('virtual-clock') ? new VirtualClock(Date.now()) : new RealClock();
  const maxSteps = intFlag(args, 'max-steps', 1) ?? 100;
  const printer = json ? null : new ProgressPrinter(io.stdout, () => clock.now(), maxSteps);
  // JSON lines are printed once committed (below), so a line printed is a line journaled, even
  // when the process is killed right after; the human progress shows events as they happen.
  const outputSink: EventSink = { append: (event) => printer?.handle(event), flush: () => Promise.resolve() };
  const store = target.store ?? openCliStore(args, io);
  const durable = createDurableSink(store);
  const plan = checked.plan;
  const run = new FlowRun({
    plan,
    registry: createRuntimeRegistry(),
    sink: new FanoutSink([durable, outputSink]),
    clock,
    maxSteps,
    concurrency: intFlag(args, 'concurrency', 1) ?? 4,
    defaultAgent: stringFlag(args, 'agent') ?? io.env.HIVEWATCH_AGENT ?? null,
    resume: target.resume ?? null,
    retryOf: target.retryOf ?? null,
    workspace: {
      repo: () => resolveRunRepo({ explicit: stringFlag(args, 'repo') ?? null, flowRepo: plan.repo, flowFile: target.file, fallbackDir: process.cwd() }),
      defaultMode: workspaceFlag(args),
    },
  });
  target.onRun?.(run);
  // Worktrees of runs a killed host left behind (opening the store marked them interrupted).
  await sweepLeftoverWorktrees(store).catch(() => []);
  const unsubscribe = json
    ? store.subscribe((batch) => {
        for (const event of batch) if (event.runId === run.runId) io.out(`${JSON.stringify(event)}\n`);
      })
    : () => undefined;
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) run.cancel({ reason: 'interrupted from the terminal (SIGINT)' });
    else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    const result = await run.start();
    return exitCodeOf(result);
  } finally {
    process.off('SIGINT', onSigint);
    printer?.stop();
    await durable.flush().catch((error: unknown) => {
      // The buffered events die with this process; the run stays open in the journal until the
      // next start marks it interrupted, and resume continues from its last durable checkpoint.
      const message = error instanceof Error ? error.message : String(error);
      io.err(
        `hivewatch: ${message}\n  the journal keeps everything up to its last durable step; ` +
          `once there is room, any hivewatch command marks run ${run.runId} interrupted and \`hivewatch resume ${run.runId}\` continues it\n`,
      );
    });
    unsubscribe();
    if (target.store === undefined) store.close();
  }
}
