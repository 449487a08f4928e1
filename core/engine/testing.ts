import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { formatDiagnostic } from '../flow/syntax/ast.js';
import { checkFlow } from '../flow/check/check.js';
import type { FlowPlan } from '../flow/plan/plan.js';
import type { AttemptRequest, AttemptResult, RuntimeRegistry, SessionRuntime } from '../runtimes/runtime.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { VirtualClock } from '../base/clock.js';
import type { HivewatchEvent } from '../base/events.js';
import { FlowRun, type RunConfig, type RunResult } from './run/run.js';
import { MemorySink } from './run/sinks.js';

/**
 * Support for engine tests: plans from source text, runs on the virtual clock with an in-memory
 * journal, and a scripted runtime whose attempts the test answers itself.
 */

/** Parses and validates; with `allowInvalid` returns the plan even when validation found problems. */
export function planOf(source: string, options: { file?: string; allowInvalid?: boolean } = {}): FlowPlan {
  const result = checkFlow(source, options.file ?? 'test.prose');
  if (result.plan === null || (!result.ok && !options.allowInvalid)) {
    throw new Error(`flow does not check:\n${result.diagnostics.map(formatDiagnostic).join('\n')}`);
  }
  return result.plan;
}

export type AttemptScript = (request: AttemptRequest, signal: AbortSignal) => Promise<AttemptResult> | AttemptResult;

/** Answers each attempt with the script registered for its session name (prompt text). */
export class ScriptedRuntime implements SessionRuntime {
  readonly name = 'scripted';
  readonly calls: AttemptRequest[] = [];
  constructor(private readonly scripts: Record<string, AttemptScript>) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    this.calls.push(request);
    const script = this.scripts[request.prompt] ?? this.scripts['*'];
    if (!script) return { kind: 'succeeded', output: `out:${request.prompt}` };
    return script(request, signal);
  }
}

export function scriptedRegistry(runtime: SessionRuntime): RuntimeRegistry {
  return { forAgent: () => runtime };
}

export function runtimeError(
  code: 'RUNTIME_RATE_LIMIT' | 'RUNTIME_CRASHED' | 'RUNTIME_TIMEOUT' | 'RUNTIME_CONNECTION_FAILED',
  message: string = code,
): AttemptResult {
  return { kind: 'failed', error: new HivewatchError(code, { message, origin: 'runtime:scripted' }) };
}

export interface TestRun {
  run: FlowRun;
  clock: VirtualClock;
  sink: MemorySink;
  done: Promise<RunResult>;
}

/** Starts a run on the virtual clock; by default every session uses the in-process noop runtime. */
export function startRun(plan: FlowPlan, config: Partial<RunConfig> = {}): TestRun {
  const clock = config.clock instanceof VirtualClock ? config.clock : new VirtualClock();
  const sink = new MemorySink();
  const run = new FlowRun({
    plan,
    registry: createRuntimeRegistry({ clock }),
    sink,
    clock,
    runId: 'run_test',
    defaultAgent: 'noop',
    ...config,
  });
  return { run, clock, sink, done: run.start() };
}

export async function runPlan(plan: FlowPlan, config: Partial<RunConfig> = {}): Promise<{ result: RunResult; events: HivewatchEvent[]; clock: VirtualClock }> {
  const { done, sink, clock } = startRun(plan, config);
  const result = await done;
  return { result, events: sink.events, clock };
}

export const typesOf = (events: readonly HivewatchEvent[]): string[] => events.map((e) => e.type);

export function ofType<T extends HivewatchEvent['type']>(events: readonly HivewatchEvent[], type: T): Extract<HivewatchEvent, { type: T }>[] {
  return events.filter((e): e is Extract<HivewatchEvent, { type: T }> => e.type === type);
}
