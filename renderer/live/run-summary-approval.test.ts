import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../core/service/api.js';
import { JournalBuilder } from '../testing/events.js';
import { matchesRunFilter } from '../../core/common/run-filter.js';
import { applyToLiveRun, type LiveRun } from './run-summary.js';

/**
 * A live row's "waiting for approval" follows the events as the store's run row does (the shared
 * rule, core/common/run-fields.ts). The event names are core/base/approval-wait.ts's, which the
 * window may not import; run-summary.store.test.ts feeds the journal's own to both.
 */
const APPROVAL_REQUESTED = 'hivewatch.approval_requested';
const APPROVAL_ENDED = 'hivewatch.approval_ended';

function replay(events: readonly HivewatchEvent[], from?: LiveRun): LiveRun | undefined {
  let live = from;
  for (const e of events) live = applyToLiveRun(live, e);
  return live;
}

describe('waiting for approval, live', () => {
  it('a prompt sets the row waiting, its end clears it and adds the time waited; the filter follows; the run ending ends it', () => {
    const j = new JournalBuilder('run_a', 1_000);
    j.start('external:claude-code', 1);
    j.add({
      type: 'externalEvent',
      name: APPROVAL_REQUESTED,
      known: true,
      taskId: null,
      attributes: { tool: 'Bash', label: 'Bash(rm -rf build)', since: 1_500, via: 'claude_code.hook_execution_start' },
    });
    const waiting = replay(j.events)!;
    expect(waiting.summary.approval).toEqual({ label: 'Bash(rm -rf build)', since: 1_500 });
    expect(matchesRunFilter(waiting.summary, { status: ['waiting-approval'] })).toBe(true);

    j.add({
      type: 'externalEvent',
      name: APPROVAL_ENDED,
      known: true,
      taskId: null,
      attributes: {
        tool: 'Bash',
        label: 'Bash(rm -rf build)',
        since: 1_500,
        waitedMs: 720_000,
        decision: 'reject',
        source: 'user_reject',
        via: 'claude_code.tool_decision',
      },
    });
    const answered = replay(j.events)!;
    expect([answered.summary.approval, answered.summary.approvalWaitMs]).toEqual([undefined, 720_000]);
    expect(matchesRunFilter(answered.summary, { status: ['waiting-approval'] })).toBe(false);

    j.add({
      type: 'externalEvent',
      name: APPROVAL_REQUESTED,
      known: true,
      taskId: null,
      attributes: { tool: 'Write', label: 'Write', since: 800_000, via: 'claude_code.hook_execution_start' },
    });
    j.add({ type: 'runCompleted', steps: 1 });
    const ended = replay(j.events)!.summary;
    expect(ended).toMatchObject({ status: 'completed', approvalWaitMs: 720_000 });
    expect(ended.approval).toBeUndefined();
  });
});
