import { CancelledError, HivewatchError } from '../../base/errors/hivewatch-error.js';
import { movedResetReason, type UsageLimitWait } from '../../base/errors/usage-limit-wait.js';
import type { TaskEnv, TaskRef } from './task-env.js';

/**
 * The wait between a failed attempt and its retry: journaled with its computed delay before the
 * sleep (rule 2), slept on the run's clock, ended early by a cancel (the task ends cancelled) or
 * by an operator's "retry now" (journaled as backoffSkipped, the retry goes on).
 */

/** An operator's "retry now" ending a backoff sleep: caught where the sleep is, journaled as backoffSkipped. */
class SkipBackoff extends HivewatchError {
  constructor(readonly commandId: string) {
    super('SYSTEM_BACKOFF_SKIPPED', { message: 'backoff skipped', context: { commandId } });
    this.name = 'SkipBackoff';
  }
}

/** A retry decision after a usage limit: the wait journaled with it, and a reset that moved said first in its reason. */
export function withUsageLimit<D extends { reason?: string }>(decision: D, usageLimit: UsageLimitWait): D & { usageLimit: UsageLimitWait } {
  const moved = movedResetReason(usageLimit);
  if (moved === null) return { ...decision, usageLimit };
  return { ...decision, usageLimit, reason: decision.reason === undefined ? moved : `${moved}; ${decision.reason}` };
}

/** Journals the computed delay before sleeping (rule 2), then sleeps; false when a cancel ended the sleep. */
export async function backoff(
  env: TaskEnv,
  ref: TaskRef,
  attempt: number,
  decision: { delayMs: number; strategy: string; reason?: string; usageLimit?: UsageLimitWait },
): Promise<boolean> {
  env.emit({
    type: 'retryScheduled',
    ...ref,
    attempt,
    delayMs: decision.delayMs,
    strategy: decision.strategy,
    nextAttemptAt: env.clock.now() + decision.delayMs,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.usageLimit === undefined ? {} : { usageLimit: decision.usageLimit }),
  });
  const sleep = new AbortController();
  const onAbort = (): void => sleep.abort(env.signal.reason ?? new CancelledError());
  env.signal.addEventListener('abort', onAbort, { once: true });
  const release = env.onBackoff((commandId) => sleep.abort(new SkipBackoff(commandId)));
  try {
    await env.clock.sleep(decision.delayMs, sleep.signal);
  } catch (interrupted) {
    if (!(sleep.signal.reason instanceof SkipBackoff)) {
      // A sleep ended by cancellation is cancellation, not an error (rule 4).
      if (interrupted instanceof CancelledError || env.signal.aborted) return false;
      throw interrupted;
    }
    env.emit({ type: 'backoffSkipped', ...ref, attempt, commandId: sleep.signal.reason.commandId });
  } finally {
    release();
    env.signal.removeEventListener('abort', onAbort);
  }
  return true;
}
