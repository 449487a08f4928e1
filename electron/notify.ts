import type { HivewatchEvent } from '../core/service/api.js';

/**
 * What the desktop shell tells the operator when a run fails: a native notification per failed
 * run, but at most one every `minIntervalMs` (a storm of failures, or --demo, must not bury the
 * desktop); a notification after a quiet spell says how many failures it stands for.
 */

export interface FailureNote {
  title: string;
  body: string;
  runId: string;
}

export function failureNotifier(
  show: (note: FailureNote) => void,
  options: { minIntervalMs?: number; now?: () => number } = {},
): (event: HivewatchEvent) => void {
  const minInterval = options.minIntervalMs ?? 10_000;
  const now = options.now ?? Date.now;
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (event) => {
    if (event.type !== 'runFailed') return;
    const at = now();
    if (at - last < minInterval) {
      suppressed++;
      return;
    }
    last = at;
    const flow = event.error.correlation.flow ?? event.runId;
    const more = suppressed > 0 ? ` (and ${suppressed} more failed run${suppressed > 1 ? 's' : ''} before it)` : '';
    suppressed = 0;
    show({ title: `Run failed: ${flow}`, body: `${event.error.code}: ${event.error.message}`.slice(0, 200) + more, runId: event.runId });
  };
}
