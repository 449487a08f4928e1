import { describe, expect, it } from 'vitest';
import type { DesktopAlertFeed, DesktopAlertView, ErrorEnvelope, HivewatchEvent } from '../core/service/api.js';
import { failureAlertOf } from '../renderer/notify/failure-rule.js';
import { desktopAlertNotifier, desktopFailureOf, failureNotifier, type FailureNote } from './notify.js';

const envelope = (code: string, flow: string | null, runId: string): ErrorEnvelope => ({
  category: 'runtime',
  code: code as ErrorEnvelope['code'],
  message: `${code} happened`,
  origin: 'runtime:fake',
  recoverable: true,
  recovery_hint: null,
  context: {},
  timestamp: 0,
  correlation: { project: null, flow, run: runId, step: 1, task: '1:0', attempt: 3 },
});

const EVENTS: HivewatchEvent[] = [
  { runId: 'r1', seq: 9, ts: 0, type: 'runFailed', error: envelope('RUNTIME_CRASHED', 'examples/05.prose', 'r1') },
  { runId: 'r2', seq: 9, ts: 0, type: 'runFailed', error: envelope('RUNTIME_CRASHED', 'user/quiet.prose', 'r2') },
  {
    runId: 'r3',
    seq: 5,
    ts: 0,
    type: 'errorOccurred',
    error: envelope('POLICY_RETRY_LIMIT_EXCEEDED', 'user/caught.prose', 'r3'),
    caught: true,
    retrying: false,
  } as HivewatchEvent,
  // Not caught: the run's own runFailed follows and is the one alert.
  {
    runId: 'r4',
    seq: 5,
    ts: 0,
    type: 'errorOccurred',
    error: envelope('POLICY_RETRY_LIMIT_EXCEEDED', 'user/caught.prose', 'r4'),
    caught: false,
    retrying: false,
  } as HivewatchEvent,
  // A retried error is no alert.
  {
    runId: 'r5',
    seq: 5,
    ts: 0,
    type: 'errorOccurred',
    error: envelope('RUNTIME_RATE_LIMITED', 'user/caught.prose', 'r5'),
    caught: false,
    retrying: true,
  } as HivewatchEvent,
  { runId: 'r6', seq: 2, ts: 0, type: 'stepFinished', step: 1 },
  { runId: 'r7', seq: 9, ts: 0, type: 'runCancelled', reason: 'operator', commandId: 'c' } as unknown as HivewatchEvent,
];

describe('failure notifications: one rule in both shells', () => {
  it('the desktop notifier and the browser window announce exactly the same events, for the same flows', () => {
    for (const event of EVENTS) {
      const desktop = desktopFailureOf(event);
      const browser = failureAlertOf(event);
      expect(browser === null ? null : { flow: browser.flow, title: browser.title }, `${event.runId} ${event.type}`).toEqual(
        desktop === null ? null : { flow: desktop.flow, title: desktop.title },
      );
    }
    expect(EVENTS.map((e) => desktopFailureOf(e)?.title ?? null)).toEqual([
      'Run failed: examples/05.prose',
      'Run failed: user/quiet.prose',
      'Retries exhausted: user/caught.prose',
      null,
      null,
      null,
      null,
    ]);
  });

  it('a muted flow never notifies; the others still do', () => {
    const notes: FailureNote[] = [];
    let clock = 0;
    const notify = failureNotifier((n) => notes.push(n), {
      minIntervalMs: 10_000,
      now: () => (clock += 20_000),
      isMuted: (flow) => flow === 'user/quiet.prose',
    });
    for (const event of EVENTS) notify(event);
    expect(notes).toEqual([
      { title: 'Run failed: examples/05.prose', body: 'RUNTIME_CRASHED: RUNTIME_CRASHED happened', runId: 'r1' },
      { title: 'Retries exhausted: user/caught.prose', body: 'POLICY_RETRY_LIMIT_EXCEEDED happened', runId: 'r3' },
    ]);
  });
});

describe('desktop alert rules in Electron', () => {
  const fired = (id: string, patch: Partial<DesktopAlertView> = {}): DesktopAlertView => ({
    id,
    firing: id,
    kind: 'fire',
    ruleId: 'alr_1',
    title: 'Alert: telemetry silent',
    body: 'Agent session s1 (external:claude-code): no telemetry for 30 s (expected every 5 s)',
    runId: null,
    issue: null,
    createdAt: 0,
    ...patch,
  });

  it('shows each firing of the feed once with the route its click opens; the first read is only the start', async () => {
    const answers: DesktopAlertFeed[] = [
      { alerts: [fired('dlv_before')], through: 1_000 },
      { alerts: [fired('dlv_before'), fired('dlv_1', { runId: 's1' })], through: 6_000 },
      { alerts: [fired('dlv_1', { runId: 's1' }), fired('dlv_2', { kind: 'resolve', firing: 'dlv_1', issue: 'abcdef0123456789' })], through: 11_000 },
    ];
    const reads: (number | undefined)[] = [];
    const shown: [string, string, string][] = [];
    const check = desktopAlertNotifier(
      (after) => {
        reads.push(after);
        return Promise.resolve(answers.shift()!);
      },
      (alert, route) => shown.push([alert.id, alert.firing, route]),
    );
    await check();
    await check();
    await check();
    expect(reads).toEqual([undefined, 1_000, 6_000]);
    expect(shown).toEqual([
      ['dlv_1', 'dlv_1', '#/runs/s1'],
      ['dlv_2', 'dlv_1', '#/issues/abcdef0123456789'],
    ]);
  });
});
