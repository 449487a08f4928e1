import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../core/service/api.js';
import { canBulkRetry, canRetry, canStopWatching, isOperable } from './run-actions.js';

const RUN_STATUSES: RunStatus[] = ['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted'];

describe('which runs a retry takes', () => {
  it('bulk retry takes ended runs that did not succeed; a completed run only on its own', () => {
    expect(RUN_STATUSES.filter(canBulkRetry)).toEqual(['failed', 'cancelled', 'interrupted']);
    expect(RUN_STATUSES.filter(canRetry)).toEqual(['completed', 'failed', 'cancelled', 'interrupted']);
  });
});

describe('which runs take commands at all', () => {
  it('leaves out an external run (an agent session seen through telemetry): it is watched, not run', () => {
    expect(isOperable({})).toBe(true);
    expect(isOperable({ source: 'runtime:claude-code' })).toBe(false);
  });
});

describe('which external runs take a cancel (stop watching)', () => {
  it('only a running session its usage limit stopped; not a running one, an ended one, nor a run of Hivewatch waiting for a limit', () => {
    const reset = Date.UTC(2026, 10, 27, 3, 17);
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'running', waitingUntil: reset })).toBe(true);
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'running', waitingUntil: null })).toBe(false);
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'cancelled', waitingUntil: reset })).toBe(false);
    expect(canStopWatching({ status: 'running', waitingUntil: reset })).toBe(false);
  });

  it('a running session waiting for a person to approve a prompt; not once it ended, nor a run of Hivewatch', () => {
    const approval = { label: 'Bash', since: Date.UTC(2026, 10, 29, 3, 0) };
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'running', waitingUntil: null, approval })).toBe(true);
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'running', waitingUntil: null, approval: null })).toBe(false);
    expect(canStopWatching({ source: 'claude-code 2.1.332', status: 'cancelled', waitingUntil: null, approval })).toBe(false);
    expect(canStopWatching({ status: 'running', waitingUntil: null, approval })).toBe(false);
  });
});
