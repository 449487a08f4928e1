import type { RunStatus } from '../../core/service/api.js';

const STATUS_HINT: Record<RunStatus, string> = {
  queued: 'waiting to start',
  running: 'executing steps',
  cancelling: 'cancel requested: stopping in-flight tasks',
  completed: 'finished successfully',
  failed: 'ended with an uncaught error',
  cancelled: 'stopped by a cancel',
  interrupted: 'its host died mid-run; resumable from the last checkpoint',
};

/** A run's status: a coloured dot and the word (never colour alone). */
export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span className={`badge status status-${status}`} title={STATUS_HINT[status]} data-status={status}>
      <span className="dot" aria-hidden="true" />
      {status}
    </span>
  );
}

/** The outcome of a task or attempt, in the same visual language. */
export function OutcomeBadge({ status }: { status: string }) {
  return (
    <span className={`badge outcome outcome-${status}`} data-status={status}>
      <span className="dot" aria-hidden="true" />
      {status}
    </span>
  );
}
