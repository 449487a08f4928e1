import { envelope, JournalBuilder } from './journal-builder.js';

/** A Claude-style usage-limit notice with its reset, as the tests' journals report it. */
export const LIMIT_REPORTED = "You've reached your session limit · resets 2:05pm (UTC)";

/**
 * A run whose one task failed on a subscription usage limit and waits for the reset
 * (`usageLimit: false`: the same backoff without the usage limit, a plain rate-limit wait).
 * The journal ends in the wait: append more to the builder to resume or cancel it.
 */
export function usageLimitWait(
  runId: string,
  options: { start: number; resetAt: number; flow?: string; flowName?: string; usageLimit?: boolean },
): JournalBuilder {
  const flow = options.flow ?? 'flows/a.prose';
  const b = new JournalBuilder(runId, { flow, flowName: options.flowName ?? 'a', start: options.start }).start();
  const ref = { step: 1, ordinal: 0, taskId: '1:0' };
  b.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'Fix the bug' }] });
  b.push({ type: 'taskStarted', ...ref, name: 'Fix the bug', agent: 'coder', maxAttempts: 3 });
  b.push({ type: 'attemptStarted', ...ref, attempt: 1 });
  const correlation = { project: null, flow, run: runId, step: 1, task: '1:0', attempt: 1 };
  const context = { usageLimit: true, resetAt: options.resetAt, resetReported: LIMIT_REPORTED };
  const error = { ...envelope({ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code' }, correlation, b.ts), context };
  b.push({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: 10, error });
  b.push({ type: 'errorOccurred', error, caught: false, retrying: true, ...ref });
  const usage = options.usageLimit === false ? {} : { usageLimit: { reported: LIMIT_REPORTED, resetAt: options.resetAt } };
  const delayMs = options.resetAt - b.ts;
  b.push({ type: 'retryScheduled', ...ref, attempt: 1, delayMs, strategy: 'runtime_reset_time', nextAttemptAt: options.resetAt, ...usage });
  return b;
}
