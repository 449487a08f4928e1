import type { RunEnding } from '../../common/ending-chain.js';
import type { RunRow } from './schema.js';

/** The ending error a run row holds; null for a live or completed run. */
export function endingErrorOf(run: RunRow): RunEnding | null {
  if (run.endingCode === null) return null;
  const chain = run.endingChain ?? [];
  return {
    code: run.endingCode,
    category: run.endingCategory ?? '',
    origin: run.endingOrigin ?? '',
    message: run.endingMessage ?? '',
    step: run.endingStep,
    taskId: run.endingTaskId,
    attempt: run.endingAttempt,
    rootCode: run.endingRootCode ?? run.endingCode,
    chain,
  };
}
