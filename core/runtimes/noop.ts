import { RealClock, type Clock } from '../base/clock.js';
import { isCancelled, toHivewatchError } from '../base/errors/hivewatch-error.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from './runtime.js';
import { readFakeOutput, simulatedObservation, simulatedOutcome, timedOutObservation } from './simulated.js';

/**
 * The `noop` runtime: the fake agent's behaviour without a subprocess, for benchmarks (which
 * measure the engine, not fork/exec) and engine tests on a virtual clock. Each simulated outcome
 * becomes the observation the fake agent would produce and is read by the fake's own reader,
 * so both runtimes give the same errors (origins `runtime:noop` instead of `runtime:fake`).
 * Waits (`slow:<d>`, and a timeout cutting one short) go through the injected clock.
 */

const NOOP = 'noop';

export interface NoopRuntimeOptions {
  /** Default: a RealClock. Engine tests pass their VirtualClock. */
  clock?: Clock | undefined;
}

export class NoopRuntime implements SessionRuntime {
  readonly name = NOOP;
  private readonly clock: Clock;

  constructor(options: NoopRuntimeOptions = {}) {
    this.clock = options.clock ?? new RealClock();
  }

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const picked = simulatedOutcome(request);
    if (!picked.ok) return picked.result;
    const { outcome } = picked;
    if (outcome.kind === 'slow') {
      // As with the subprocess: a timeout shorter than the work ends the attempt at the timeout.
      const timeout = request.timeoutMs;
      const cutShort = timeout !== null && timeout < outcome.ms;
      try {
        await this.clock.sleep(cutShort ? timeout : outcome.ms, signal);
      } catch (error) {
        if (isCancelled(error) || signal.aborted) return { kind: 'cancelled' };
        // A runtime never rejects (SessionRuntime contract): a clock that failed is a broken invariant.
        return { kind: 'failed', error: toHivewatchError(error) };
      }
      if (cutShort) return readFakeOutput(timedOutObservation(this.name, timeout), request.agent.name);
    }
    return readFakeOutput(simulatedObservation(outcome, request.prompt, this.name), request.agent.name);
  }
}
