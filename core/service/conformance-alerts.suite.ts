import { beforeAll, expect, it } from 'vitest';
import type { AlertDeliveryChange, HivewatchApi } from './api.js';
import type { ConformanceContext } from './testing.js';

/**
 * The conformance suite's case for the alerts' word on the live subscription, on every shell
 * (in-process, HTTP, IPC): a desktop rule's firing is told to a subscription as a desktop change,
 * so the window reads the desktop feed and the delivery log when it happens.
 * Registered by `apiConformanceSuite` (conformance.suite.ts) after its beforeAll.
 */
export function alertConformanceCases(context: ConformanceContext): void {
  let api: HivewatchApi;
  beforeAll(() => {
    ({ api } = context);
  });

  it("a desktop rule's firing is told to the live subscription, then found in the desktop feed", async () => {
    const rule = await api.addAlertRule({ when: 'run-failed', desktop: true, throttle: '0' });
    const told: AlertDeliveryChange[] = [];
    let desktopTold: () => void = () => undefined;
    const desktop = new Promise<void>((resolve) => (desktopTold = resolve));
    let readyNow: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (readyNow = resolve));
    const stop = api.subscribe(() => undefined, {
      onReady: () => readyNow(),
      onAlertDeliveries: (change) => {
        told.push(change);
        if (change.desktop) desktopTold();
      },
    });
    try {
      await ready;
      const runId = await context.start('examples/05-try-catch-finally.prose');
      await context.finished(runId);
      await desktop;
      expect(told.some((change) => change.desktop)).toBe(true);
      const feed = await api.listDesktopAlerts({ after: 0 });
      expect(feed.alerts.filter((a) => a.ruleId === rule.id).map((a) => a.runId)).toEqual([runId]);
    } finally {
      stop();
      await api.removeAlertRule({ id: rule.id });
    }
  });
}
