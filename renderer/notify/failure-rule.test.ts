import { describe, expect, it } from 'vitest';
import type { FailureLink, HivewatchEvent } from '../../core/service/api.js';
import { envelope } from '../testing/events.js';
import { failureAlertOf } from './failure-rule.js';

const correlation = { project: null, flow: 'user/deploy.prose', run: 'r1', step: 1, task: '1:0', attempt: 4 };
const limit = envelope('POLICY_RETRY_LIMIT_EXCEEDED', { origin: 'policy', message: 'gave up after 4 attempts: exited with code 2', correlation });
const link = (code: string, how: FailureLink['how'], message: string): FailureLink => ({
  seq: 20,
  code,
  category: code.split('_')[0]?.toLowerCase() ?? '',
  origin: 'runtime:fake',
  message,
  step: 1,
  taskId: '1:0',
  attempt: 4,
  how,
});

describe('the failure alert of a run', () => {
  it('says the ending error (runFailed’s), whose message carries the root cause’s', () => {
    const event: HivewatchEvent = {
      runId: 'r1',
      seq: 25,
      ts: 0,
      type: 'runFailed',
      error: limit,
      chain: [link('POLICY_RETRY_LIMIT_EXCEEDED', 'retry-limit', limit.message), link('RUNTIME_CRASHED', null, 'exited with code 2')],
    };
    expect(failureAlertOf(event)).toEqual({
      runId: 'r1',
      flow: 'user/deploy.prose',
      title: 'Run failed: user/deploy.prose',
      body: 'POLICY_RETRY_LIMIT_EXCEEDED: gave up after 4 attempts: exited with code 2',
    });
  });

  it('a cancel or a completed run is no alert', () => {
    expect(failureAlertOf({ runId: 'r1', seq: 9, ts: 0, type: 'runCompleted', steps: 2 })).toBeNull();
    expect(
      failureAlertOf({
        runId: 'r1',
        seq: 9,
        ts: 0,
        type: 'runCancelled',
        cause: { commandId: 'c', reason: 'stop' },
        correlation: { run: 'r1', step: 1, epoch: 1 },
      }),
    ).toBeNull();
  });
});
