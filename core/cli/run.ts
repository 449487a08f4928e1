import { formatDiagnostic } from '../flow/ast.js';
import { checkFlowFile } from '../flow/check.js';
import { RealClock, VirtualClock, type Clock } from '../engine/clock.js';
import type { EventSink } from '../engine/events.js';
import { FlowRun, type RunResult } from '../engine/run.js';
import { FanoutSink, JsonLinesSink } from '../engine/sinks.js';
import type { ResumePoint } from '../engine/resume.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { createDurableSink, type HivewatchStore } from '../store/index.js';
import { readFile } from 'node:fs/promises';
import { checkFlow } from '../flow/check.js';
import type { CheckResult } from '../flow/plan.js';
import { FlowKeys, flowFoldersForDatabase } from '../service/flow-keys.js';
import { databasePathOf, openCliStore } from './database.js';
import { intFlag, stringFlag, type ParsedArgs } from './args.js';
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

export function exitCodeOf(result: RunResult): number {
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
  const json = args.flags.has('json');
  const clock: Clock = args.flags.has('virtual-clock') ? new VirtualClock(Date.now()) : new RealClock();
  const maxSteps = intFlag(args, 'max-steps', 1) ?? 100;
  const printer = json ? null : new ProgressPrinter(io.stdout, () => clock.now(), maxSteps);
  const outputSink: EventSink = json
    ? new JsonLinesSink((line) => io.out(line))
    : { append: (event) => printer?.handle(event), flush: () => Promise.resolve() };
  const store = target.store ?? openCliStore(args, io);
  const durable = createDurableSink(store);
  const run = new FlowRun({
    plan: checked.plan,
    registry: createRuntimeRegistry(),
    sink: new FanoutSink([durable, outputSink]),
    clock,
    maxSteps,
    concurrency: intFlag(args, 'concurrency', 1) ?? 4,
    defaultAgent: stringFlag(args, 'agent') ?? io.env.HIVEWATCH_AGENT ?? null,
    resume: target.resume ?? null,
    retryOf: target.retryOf ?? null,
  });
  target.onRun?.(run);
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
    await durable.flush();
    if (target.store === undefined) store.close();
  }
}
