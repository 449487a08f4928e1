import { describe, expect, it } from 'vitest';
import type { HivewatchEvent, LiveEvent } from '../../core/service/api.js';
import { FakeApi } from '../testing/fake-api.js';
import { FailureAlerts, titleWithCount, type AlertPermission, type NotificationNote, type NotificationPort } from './failure-alerts.js';

const failed = (id: number, runId: string, flow: string): LiveEvent => ({
  id,
  event: {
    runId,
    seq: 9,
    ts: 0,
    type: 'runFailed',
    error: {
      category: 'runtime',
      code: 'RUNTIME_CRASHED',
      message: 'boom',
      origin: 'runtime:fake',
      recoverable: true,
      recovery_hint: null,
      context: {},
      timestamp: 0,
      correlation: { project: null, flow, run: runId, step: 1, task: null, attempt: null },
    },
  } as HivewatchEvent,
});
const other = (id: number): LiveEvent => ({ id, event: { runId: 'r0', seq: 2, ts: 0, type: 'stepFinished', step: 1 } });

function setup(options: { desktop?: boolean; permission?: AlertPermission } = {}) {
  const api = new FakeApi();
  const shown: NotificationNote[] = [];
  const clicks: (() => void)[] = [];
  const titles: string[] = [];
  const opened: string[] = [];
  let permission: AlertPermission = options.permission ?? 'granted';
  const port: NotificationPort = {
    permission: () => permission,
    request: async () => (permission = 'granted'),
    show: (note, onClick) => {
      shown.push(note);
      clicks.push(onClick);
    },
  };
  const alerts = new FailureAlerts({
    api,
    desktop: options.desktop ?? false,
    notifications: options.desktop ? null : port,
    baseTitle: 'Hivewatch',
    setTitle: (t) => titles.push(t),
    openRun: (runId) => opened.push(runId),
  });
  return { api, alerts, shown, clicks, titles, opened };
}

describe('failure alerts in the window', () => {
  it('counts failures in the title and notifies, except for muted flows; coming back clears the count', async () => {
    const { api, alerts, shown, titles } = setup();
    api.muted.add('user/quiet.prose');
    // A failure that arrives before the mutes are read waits for them.
    alerts.onLive([failed(1, 'r-early', 'user/quiet.prose')]);
    await alerts.load();
    expect(titles).toEqual([]);
    alerts.onLive([other(2), failed(3, 'r1', 'examples/a.prose')]);
    alerts.onLive([failed(4, 'r2', 'user/quiet.prose'), failed(5, 'r3', 'examples/b.prose')]);
    expect(titles).toEqual(['(1) Hivewatch', '(2) Hivewatch']);
    expect(shown).toEqual([
      { title: 'Run failed: examples/a.prose', body: 'RUNTIME_CRASHED: boom', tag: 'hivewatch-failure' },
      { title: 'Run failed: examples/b.prose', body: 'RUNTIME_CRASHED: boom (2 failures since you last looked)', tag: 'hivewatch-failure' },
    ]);
    alerts.markSeen();
    expect(titles.at(-1)).toBe('Hivewatch');
    expect(alerts.getSnapshot().unseen).toBe(0);

    await alerts.setMuted('examples/a.prose', true);
    expect(api.calls).toContain('setFlowMuted:examples/a.prose:true');
    expect([...alerts.getSnapshot().muted]).toEqual(['examples/a.prose', 'user/quiet.prose']);
    alerts.onLive([failed(6, 'r4', 'examples/a.prose')]);
    expect(alerts.getSnapshot().unseen).toBe(0);
    await alerts.setMuted('examples/a.prose', false);
    alerts.onLive([failed(7, 'r5', 'examples/a.prose')]);
    expect(alerts.getSnapshot().unseen).toBe(1);
  });

  it('asks permission only when told to; without it, and in Electron, it only counts', async () => {
    const browser = setup({ permission: 'default' });
    await browser.alerts.load();
    expect(browser.alerts.getSnapshot().permission).toBe('default');
    browser.alerts.onLive([failed(1, 'r1', 'examples/a.prose')]);
    expect(browser.shown).toEqual([]);
    expect(browser.titles).toEqual(['(1) Hivewatch']);
    await browser.alerts.requestPermission();
    expect(browser.alerts.getSnapshot().permission).toBe('granted');
    browser.alerts.onLive([failed(2, 'click-me', 'examples/a.prose')]);
    expect(browser.shown.map((a) => a.title)).toEqual(['Run failed: examples/a.prose']);
    browser.clicks.at(-1)!();
    // The click opens the run and counts as coming back.
    expect(browser.opened).toEqual(['click-me']);
    expect(browser.alerts.getSnapshot().unseen).toBe(0);

    const desktop = setup({ desktop: true });
    await desktop.alerts.load();
    expect(desktop.alerts.getSnapshot().permission).toBe('desktop');
    desktop.alerts.onLive([failed(1, 'r1', 'examples/a.prose')]);
    expect(desktop.shown).toEqual([]);
    expect(desktop.titles).toEqual(['(1) Hivewatch']);
  });

  it('titleWithCount', () => {
    expect(titleWithCount('Hivewatch', 0)).toBe('Hivewatch');
    expect(titleWithCount('Hivewatch', 3)).toBe('(3) Hivewatch');
  });
});

describe('muting', () => {
  it('shows the mute at once and puts it back when the database refuses it', async () => {
    const api = new FakeApi();
    let fail = false;
    const alerts = new FailureAlerts({
      api: {
        getNotificationSettings: () => api.getNotificationSettings(),
        setFlowMuted: (input) => (fail ? Promise.reject(new Error('disk full')) : api.setFlowMuted(input)),
      },
      desktop: true,
      notifications: null,
      baseTitle: 'Hivewatch',
      setTitle: () => undefined,
      openRun: () => undefined,
    });
    await alerts.load();
    const pending = alerts.setMuted('user/a.prose', true);
    expect([...alerts.getSnapshot().muted]).toEqual(['user/a.prose']);
    await pending;
    fail = true;
    const refused = alerts.setMuted('user/a.prose', false);
    expect([...alerts.getSnapshot().muted]).toEqual([]);
    await refused;
    expect([...alerts.getSnapshot().muted]).toEqual(['user/a.prose']);
    expect(alerts.getSnapshot().error).toBe('could not unmute user/a.prose: disk full');
  });
});
