import { describe, expect, it } from 'vitest';
import type { DesktopAlertView } from '../../core/service/api.js';
import { FakeApi } from '../testing/fake-api.js';
import { desktopAlertRoute } from '../../core/common/desktop-alerts.js';
import { DesktopAlerts } from './desktop-alerts.js';
import type { AlertPermission, NotificationNote, NotificationPort } from './failure-alerts.js';

const T0 = Date.UTC(2026, 10, 29, 10, 0);

const alert = (id: string, patch: Partial<DesktopAlertView> = {}): DesktopAlertView => ({
  id,
  firing: id,
  kind: 'fire',
  ruleId: 'alr_1',
  title: 'Alert: approval pending too long',
  body: `Run r-${id} of external:claude-code is waiting for approval of Bash(rm -rf build) for 10 min`,
  runId: `r-${id}`,
  issue: null,
  createdAt: T0,
  ...patch,
});

function setup(permission: AlertPermission = 'granted') {
  const api = new FakeApi();
  const shown: NotificationNote[] = [];
  const clicks: (() => void)[] = [];
  const opened: string[] = [];
  let allowed = permission;
  const port: NotificationPort = {
    permission: () => allowed,
    request: async () => (allowed = 'granted'),
    show: (note, onClick) => {
      shown.push(note);
      clicks.push(onClick);
    },
  };
  const alerts = new DesktopAlerts({ api, notifications: port, open: (route) => opened.push(route) });
  return { api, alerts, shown, clicks, opened, allow: () => (allowed = 'granted') };
}

describe('desktop alerts in the browser window', () => {
  it('shows each firing of the feed once, tagged by its firing so the resolve replaces it; a click opens the run', async () => {
    const { api, alerts, shown, clicks, opened } = setup();
    api.desktopAlerts.push(alert('dlv_old', { createdAt: T0 - 1 }));
    api.desktopNow = T0;
    // The first read is the start: what fired before the window opened is not shown.
    await alerts.check();
    expect(shown).toEqual([]);

    api.desktopAlerts.push(alert('dlv_1', { createdAt: T0 + 1 }));
    api.desktopNow = T0 + 5_000;
    await alerts.check();
    // The next read looks back past `through` again: dlv_1 comes twice and is shown once.
    api.desktopNow = T0 + 10_000;
    await alerts.check();
    expect(shown).toEqual([
      {
        title: 'Alert: approval pending too long',
        body: 'Run r-dlv_1 of external:claude-code is waiting for approval of Bash(rm -rf build) for 10 min',
        tag: 'hivewatch-alert-dlv_1',
      },
    ]);
    expect(api.calls.filter((c) => c.startsWith('listDesktopAlerts'))).toEqual([
      'listDesktopAlerts:',
      `listDesktopAlerts:${T0}`,
      `listDesktopAlerts:${T0 + 5_000}`,
    ]);
    clicks[0]!();
    expect(opened).toEqual(['#/runs/r-dlv_1']);

    api.desktopAlerts.push(alert('dlv_2', { kind: 'resolve', firing: 'dlv_1', title: 'Resolved: approval pending too long', createdAt: T0 + 11_000 }));
    api.desktopNow = T0 + 15_000;
    await alerts.check();
    expect(shown.map((n) => [n.title, n.tag])).toEqual([
      ['Alert: approval pending too long', 'hivewatch-alert-dlv_1'],
      ['Resolved: approval pending too long', 'hivewatch-alert-dlv_1'],
    ]);
  });

  it('passes over what fires while notifications are not allowed; shows what fires once they are', async () => {
    const { api, alerts, shown, allow } = setup('default');
    await alerts.check();
    api.desktopAlerts.push(alert('dlv_before', { createdAt: T0 + 1 }));
    api.desktopNow = T0 + 5_000;
    await alerts.check();
    expect(shown).toEqual([]);
    allow();
    api.desktopAlerts.push(alert('dlv_after', { createdAt: T0 + 6_000 }));
    api.desktopNow = T0 + 10_000;
    await alerts.check();
    expect(shown.map((n) => n.tag)).toEqual(['hivewatch-alert-dlv_after']);
  });

  it('reads nothing where the window does not notify (Electron: its main process does)', async () => {
    const api = new FakeApi();
    await new DesktopAlerts({ api, notifications: null, open: () => undefined }).check();
    expect(api.calls).toEqual([]);
  });

  it('opens the run, else the issue, else the alert rules', () => {
    expect(desktopAlertRoute({ runId: 'run 1', issue: 'abc' })).toBe('#/runs/run%201');
    expect(desktopAlertRoute({ runId: null, issue: '0123456789abcdef' })).toBe('#/issues/0123456789abcdef');
    expect(desktopAlertRoute({ runId: null, issue: null })).toBe('#/settings/alerts');
  });
});
