import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { listDeliveries } from './alert-queries.js';
import { addAlertRule, listAlertRules } from './alerts-api.js';
import { DESKTOP_FEED_OVERLAP_MS, desktopAlertFeed } from './desktop-feed.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * The desktop channel on every store engine, with a clock the test moves (no sleeps) and a real
 * webhook receiver on 127.0.0.1: a desktop-only rule's firing and its resolve reach the desktop
 * feed the windows read and are never posted; a rule with both channels is posted and shown; the
 * feed gives nothing on its first read, and each later read what is new since the one before.
 */

const harness = testEngines('desktop_alerts');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 29, 9, 0);
const SECOND = 1_000;

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

const promptAt = (id: string, at: number) => claudeCodeLogs([['user_prompt', { 'prompt.id': id, prompt_length: '5' }]], 'session-desk', at - 2 * SECOND);

for (const engine of harness.engines) {
  describe(`desktop alerts on ${engine.name}`, () => {
    it('shows a desktop-only rule’s firing and its resolve without posting them; a rule with both channels is posted and shown', async () => {
      const clock = new ManualClock(T0);
      const store = await openStore({ path: await engine.fresh(), now: clock.now });
      open.stores.push(store);
      const receiver = new TestReceiver();
      open.receivers.push(receiver);
      const url = await receiver.start();
      const alerts = new AlertEngine({ store, now: clock.now, host: 'host-a' });
      await alerts.pump();
      const desktopOnly = await addAlertRule(store, { when: 'telemetry-silent-longer-than=30s', desktop: true, throttle: '0' }, 'test', T0);
      const both = await addAlertRule(store, { when: 'telemetry-silent-longer-than=1m', webhook: `${url}/hook`, desktop: true, throttle: '0' }, 'test', T0 + 1);
      expect((await listAlertRules(store)).map((r) => [r.id, r.channels, r.webhook])).toEqual([
        [desktopOnly.id, 'desktop', null],
        [both.id, 'webhook + desktop', `${url}/…`],
      ]);
      const first = await desktopAlertFeed(store, undefined, clock.now());
      expect(first).toEqual({ alerts: [], through: T0 });

      const ingester = new OtelIngester(store, { now: clock.now, quietMs: 600_000 });
      const runId = (await ingester.ingest(promptAt('p-1', T0), null)).runIds[0]!;
      clock.value = T0 + 30 * SECOND + 1;
      await alerts.pump();
      await alerts.pump();
      expect(receiver.requests).toHaveLength(0);
      const fired = await desktopAlertFeed(store, first.through, clock.now());
      expect(fired.through).toBe(clock.value);
      expect(fired.alerts).toEqual([
        {
          id: expect.stringMatching(/^dlv_/) as string,
          firing: fired.alerts[0]!.id,
          kind: 'fire',
          ruleId: desktopOnly.id,
          title: 'Alert: telemetry silent',
          body: `Agent session ${runId} (external:claude-code): no telemetry for 30 s (expected every 5 s)`,
          runId,
          issue: null,
          createdAt: clock.value,
        },
      ]);
      const stored = await store.runStatements((d) => listDeliveries(d));
      expect(stored.map((d) => [d.ruleId, d.kind, d.status, d.attempts])).toEqual([[desktopOnly.id, 'fire', 'desktop', 0]]);

      // Past a minute the rule with both channels fires: posted once, and shown.
      clock.value = T0 + 60 * SECOND + 1;
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies().map((b) => [b.kind, (b.rule as { id: string }).id])).toEqual([['fire', both.id]]);
      const second = await desktopAlertFeed(store, fired.through, clock.now());
      // The read looks back past `after` (the overlap): the first firing again, which a window drops by id.
      expect(second.alerts.map((a) => [a.ruleId, a.kind])).toEqual([
        [desktopOnly.id, 'fire'],
        [both.id, 'fire'],
      ]);

      // The source sends again: each firing is resolved; the desktop-only one is still not posted.
      clock.value = T0 + 90 * SECOND;
      await ingester.ingest(promptAt('p-2', clock.value), null);
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies().map((b) => [b.kind, (b.rule as { id: string }).id])).toEqual([
        ['fire', both.id],
        ['resolve', both.id],
      ]);
      // A read a whole overlap after the firings sees only the follow-ups.
      const resolved = await desktopAlertFeed(store, T0 + 60 * SECOND + 1 + DESKTOP_FEED_OVERLAP_MS, clock.now());
      expect(resolved.alerts.map((a) => [a.ruleId, a.kind, a.title, a.firing])).toEqual([
        [desktopOnly.id, 'resolve', 'Resolved: telemetry silent', fired.alerts[0]!.id],
        [both.id, 'resolve', 'Resolved: telemetry silent', second.alerts[1]!.id],
      ]);
      expect((await store.runStatements((d) => listDeliveries(d))).filter((d) => d.ruleId === desktopOnly.id).map((d) => d.status)).toEqual([
        'desktop',
        'desktop',
      ]);
      expect(await alerts.test(desktopOnly.id)).toMatchObject({ kind: 'test', status: 'desktop', attempts: 0 });
      expect(receiver.requests).toHaveLength(2);
    });
  });
}
