import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { addAlertRule } from './alerts-api.js';
import { AlertEngine } from './engine.js';
import { ManualClock, TestReceiver } from './testing.js';

/**
 * `telemetry-silent-longer-than=N` against a real webhook receiver on 127.0.0.1, on every store
 * engine, with a clock the test moves (no sleeps): nothing while the session's source is within N,
 * one delivery once it has been silent past N, never twice for the same silence, a resolve once
 * the source sends again, a new delivery for its next silence, and a resolve naming the session's
 * end when the quiet period ends it.
 */

const harness = testEngines('telemetry_silent_alerts');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 29, 9, 0);
const SECOND = 1_000;

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

const promptAt = (id: string, at: number) => claudeCodeLogs([['user_prompt', { 'prompt.id': id, prompt_length: '5' }]], 'session-silent', at - 2 * SECOND);

for (const engine of harness.engines) {
  describe(`telemetry-silent-longer-than on ${engine.name}`, () => {
    it('fires once per silence of a source, resolves when it sends again, fires again for its next silence', async () => {
      const clock = new ManualClock(T0);
      const store = await openStore({ path: await engine.fresh(), now: clock.now });
      open.stores.push(store);
      const receiver = new TestReceiver();
      open.receivers.push(receiver);
      const url = await receiver.start();
      const alerts = new AlertEngine({ store, now: clock.now, host: 'host-a' });
      await alerts.pump();
      await addAlertRule(store, { when: 'telemetry-silent-longer-than=30s', flow: 'external:claude-code', webhook: `${url}/hook`, throttle: '0' }, 'test', T0);
      // Only the test's own sweep ends the session, after its two-minute quiet period.
      const ingester = new OtelIngester(store, { now: clock.now, quietMs: 120_000 });
      const runId = (await ingester.ingest(promptAt('p-1', T0), null)).runIds[0]!;

      clock.value = T0 + 30 * SECOND;
      await alerts.pump();
      expect(receiver.requests).toHaveLength(0);

      clock.value = T0 + 30 * SECOND + 1;
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies()).toMatchObject([
        {
          kind: 'fire',
          rule: { condition: 'telemetry-silent-longer-than' },
          subject: `telemetry:${runId}`,
          facts: { runId, origin: 'runtime:claude-code', lastSeenAt: T0, expectedEveryMs: 5_000 },
        },
      ]);
      expect(receiver.bodies()[0]!.title).toBe(`Agent session ${runId} (external:claude-code): no telemetry for 30 s (expected every 5 s)`);

      // It sends again: the fire is resolved, once.
      clock.value = T0 + 40 * SECOND;
      await ingester.ingest(promptAt('p-2', clock.value), null);
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies().map((b) => b.kind)).toEqual(['fire', 'resolve']);
      expect(receiver.bodies()[1]!.title).toBe(`Resolved: ${receiver.bodies()[0]!.title} (its telemetry arrived again)`);

      // Its next silence is news again.
      clock.value = T0 + 40 * SECOND + 30 * SECOND + 1;
      await alerts.pump();
      expect(receiver.bodies().map((b) => [b.kind, (b.facts as { lastSeenAt: number }).lastSeenAt])).toEqual([
        ['fire', T0],
        ['resolve', T0],
        ['fire', T0 + 40 * SECOND],
      ]);

      // The quiet period ends the session (its prompt's request never answered: failed): resolved, saying so.
      clock.value = T0 + 40 * SECOND + 120_001;
      expect(await ingester.sweep()).toEqual([runId]);
      await alerts.pump();
      expect(receiver.bodies().map((b) => b.kind)).toEqual(['fire', 'resolve', 'fire', 'resolve']);
      expect(receiver.bodies()[3]!.title).toBe(`Resolved: ${receiver.bodies()[2]!.title} (the session ended: failed)`);
    });
  });
}
