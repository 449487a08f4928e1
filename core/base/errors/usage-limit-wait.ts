/**
 * What a retry after a subscription usage limit journals (retryScheduled.usageLimit): the line
 * the agent CLI printed and the reset instant read from it. Read from the failure's context,
 * which the one provider classifier fills (core/runtimes/provider-failure.ts: `usageLimit`,
 * `resetReported`, `resetAt`). Null for any other failure.
 */
export interface UsageLimitWait {
  reported: string;
  resetAt: number | null;
}

export function usageLimitWaitOf(failure: { context?: Record<string, unknown> }): UsageLimitWait | null {
  const context = failure.context;
  if (context?.usageLimit !== true) return null;
  const reported = typeof context.resetReported === 'string' ? context.resetReported : '';
  const resetAt = typeof context.resetAt === 'number' && Number.isFinite(context.resetAt) ? context.resetAt : null;
  return { reported, resetAt };
}
