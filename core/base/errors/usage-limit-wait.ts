/**
 * What a retry after a subscription usage limit journals (retryScheduled.usageLimit): the line
 * the agent CLI printed and the reset instant read from it. Read from the failure's context,
 * which the one provider classifier fills (core/runtimes/provider-failure.ts: `usageLimit`,
 * `resetReported`, `resetAt`). Null for any other failure.
 */
export interface UsageLimitWait {
  reported: string;
  resetAt: number | null;
  /**
   * The reset the task waited for before this attempt, when this attempt's failure names another
   * one: the provider moved it (Codex's 5-hour window moves later while it is used). Each resume
   * reads the reset afresh from what the CLI printed then, never trusting the first one.
   */
  movedFrom?: number;
}

export function usageLimitWaitOf(failure: { context?: Record<string, unknown> }): UsageLimitWait | null {
  const context = failure.context;
  if (context?.usageLimit !== true) return null;
  const reported = typeof context.resetReported === 'string' ? context.resetReported : '';
  const resetAt = typeof context.resetAt === 'number' && Number.isFinite(context.resetAt) ? context.resetAt : null;
  return { reported, resetAt };
}

/**
 * The wait after a usage-limit failure, given the reset the task waited for last (null: none):
 * marked `movedFrom` when the reset the CLI reports now is another one.
 */
export function nextUsageLimitWait(failure: { context?: Record<string, unknown> }, previousResetAt: number | null): UsageLimitWait | null {
  const wait = usageLimitWaitOf(failure);
  if (wait === null || wait.resetAt === null || previousResetAt === null || wait.resetAt === previousResetAt) return wait;
  return { ...wait, movedFrom: previousResetAt };
}

/** The words a journal reader gets for a reset that moved: "the reset moved from <ISO> to <ISO> (2 h 5 min later)". */
export function movedResetReason(wait: UsageLimitWait): string | null {
  if (wait.movedFrom === undefined || wait.resetAt === null) return null;
  const shift = wait.resetAt - wait.movedFrom;
  const minutes = Math.round(Math.abs(shift) / 60_000);
  const amount =
    minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : minutes >= 1 ? `${minutes} min` : `${Math.round(Math.abs(shift) / 1000)} s`;
  return `the usage limit's reset moved from ${new Date(wait.movedFrom).toISOString()} to ${new Date(wait.resetAt).toISOString()} (${amount} ${shift > 0 ? 'later' : 'earlier'})`;
}
