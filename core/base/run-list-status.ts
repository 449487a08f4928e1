import type { RunStatus } from './events.js';
import type { WAITING_APPROVAL } from './approval-wait.js';

/**
 * `waiting-limit`: a run whose task waits out a subscription usage limit until its reset. Not a status of the run's own (the run stays `running`, docs/semantics.md "Usage
 * limits"), but a state the run list filters and counts by like one: `status=waiting-limit` in
 * the window's URL, `hivewatch runs --status waiting-limit`, the API's `status` filter.
 */
export const WAITING_LIMIT = 'waiting-limit';

/** What a run list's `status` filter takes: a run status, or a derived state (`waiting-limit`, `waiting-approval`: core/base/approval-wait.ts). */
export type RunListStatus = RunStatus | typeof WAITING_LIMIT | typeof WAITING_APPROVAL;
