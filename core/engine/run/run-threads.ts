import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Statement } from '../../flow/syntax/ast.js';
import type { SessionSpec } from '../../flow/plan/plan.js';
import { FailureChain } from '../interpret/failure-chain.js';
import { insideDeadParallel } from '../interpret/frames.js';
import { Interpreter } from '../interpret/interpreter.js';
import { BranchCancelled } from '../interpret/thread-failures.js';
import type { RunChannels } from './run-channels.js';
import type { PendingTask } from '../step/step.js';

/**
 * The program's threads as the superstep loop sees them: the sessions they are parked on (the
 * next frontier), whether the main thread has ended, and the `throw "message"` errors raised
 * since the last commit, journaled with it.
 */
export class RunThreads {
  private pending: PendingTask[] = [];
  private raised: { chain: FailureChain; caught: boolean }[] = [];
  readonly root: { settled: boolean; error: unknown } = { settled: false, error: null };

  constructor(
    body: readonly Statement[],
    channels: RunChannels,
    sessionAt: (ordinal: number) => SessionSpec,
    /** Gives a raised error its place in the run (correlation and time). */
    locate: (error: HivewatchError) => HivewatchError,
  ) {
    const interpreter = new Interpreter({
      submit: (call) => new Promise<string>((resolve, reject) => this.pending.push({ call, resolve, reject })),
      declareChannel: (key, name, scope, policy) => channels.declare(key, name, scope, policy),
      stageWrite: (write) => channels.stage(write),
      readChannel: (key, reader) => channels.read(key, reader),
      raised: (error, cause, caught) => {
        const own = FailureChain.of(locate(error));
        const chain = cause === null ? own : own.causedBy('thrown-in-catch', cause);
        this.raised.push({ chain, caught });
        return chain;
      },
      sessionAt,
    });
    interpreter.run(body).then(
      () => Object.assign(this.root, { settled: true }),
      (error: unknown) => Object.assign(this.root, { settled: true, error }),
    );
  }

  /** The parked sessions in ascending ordinal, handed over to the step that runs them. */
  takeFrontier(): PendingTask[] {
    const frontier = this.pending.sort((a, b) => a.call.spec.ordinal - b.call.spec.ordinal);
    this.pending = [];
    return frontier;
  }

  /** The errors thrown since the last call, in the order they were thrown. */
  takeRaised(): { chain: FailureChain; caught: boolean }[] {
    const raised = this.raised;
    this.raised = [];
    return raised;
  }

  /**
   * Let every thread run until it parks on a session or ends. A thread parked inside a parallel
   * that died is cancelled: it unwinds through its `finally` blocks (F5), whose sessions park in
   * turn and run in the next step.
   */
  async settle(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const dead = this.pending.filter((task) => insideDeadParallel(task.call.frames));
      if (dead.length === 0) return;
      this.pending = this.pending.filter((task) => !dead.includes(task));
      for (const task of dead) task.reject(new BranchCancelled());
    }
  }
}
