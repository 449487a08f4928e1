import type { FailureLink } from '../base/events.js';
import type { RunRow } from './schema.js';

/** A run's ending error as one object (the API's `EndingError`): its head link, root code and chain. */
export interface RunEnding {
  code: string;
  category: string;
  origin: string;
  message: string;
  step: number | null;
  taskId: string | null;
  attempt: number | null;
  rootCode: string;
  chain: FailureLink[];
}

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
