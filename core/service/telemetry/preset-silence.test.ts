import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { silenceWords } from '../../common/telemetry-silence.js';
import type { TelemetryRecord } from '../../otel/receive/decode.js';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { addAlertRule } from '../alerts/alerts-api.js';
import { AlertEngine } from '../alerts/engine.js';
import { ManualClock, TestReceiver } from '../alerts/testing.js';
import { readApi } from '../read-api.js';
import { silentSources } from './health.js';

/**
 * A preset attempt whose CLI was started with its exporter pointed at the receiver
 * (`attemptProcess.telemetry`) is a telemetry source from the attempt's start, on every store
 * engine, with an injected clock: silent once nothing came for more than twice its interval since
 * the attempt started, never when it was started without an exporter, judged by its records once
 * they arrive, and alerted on by `telemetry-silent-longer-than` like any other silence.
 */

const harness = testEngines('preset_telemetry_silence');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 29, 9, 0);
const SECOND = 1_000;
const REF = { step: 1, ordinal: 0, taskId: 'fix' };

const open: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

/** A run whose first attempt runs a CLI started with `telemetry` (undefined: without an exporter); returns when the attempt started. */
async function runningAttempt(store: HivewatchStore, runId: string, telemetry: string | undefined): Promise<{ run: JournalBuilder; startedAt: number }> {
  const run = new JournalBuilder(runId, { start: T0 - 60 * SECOND, flowName: 'fix things' }).start();
  run.push({ type: 'stepStarted', step: 1, frontier: [] });
  run.push({ type: 'taskStarted', ...REF, name: 'fix', agent: 'coder', maxAttempts: 3 });
  const started = run.push({ type: 'attemptStarted', ...REF, attempt: 1 });
  run.push({ type: 'attemptProcess', ...REF, attempt: 1, pid: 4242, startTime: null, hostname: 'host-a', ...(telemetry ? { telemetry } : {}) });
  await store.appendEvents(run.events);
  return { run, startedAt: started.ts };
}

async function append(store: HivewatchStore, run: JournalBuilder, body: Parameters<JournalBuilder['push']>[0]): Promise<void> {
  const before = run.events.length;
  run.push(body);
  await store.appendEvents(run.events.slice(before));
}

const linkedPrompt = (runId: string, at: number): TelemetryRecord[] =>
  claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-1', prompt_length: '5' }]], 'session-preset', at).map((r) => ({
    ...r,
    resource: { ...r.resource, 'hivewatch.run_id': runId, 'hivewatch.task_id': REF.taskId, 'hivewatch.attempt': '1' },
  }));

for (const engine of harness.engines) {
  describe(`a preset attempt's silent CLI on ${engine.name}`, () => {
    it('is silent from the attempt start past twice its interval, not before, and reads so on the runs', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.stores.push(store);
      const claude = await runningAttempt(store, 'run-claude', 'runtime:claude-code');
      const codex = await runningAttempt(store, 'run-codex', 'runtime:codex-cli');

      now = codex.startedAt + 2 * SECOND;
      expect(await silentSources(store, now)).toEqual([]);
      now = codex.startedAt + 2 * SECOND + 1;
      expect((await silentSources(store, now)).map((s) => s.runId)).toEqual(['run-codex']);

      now = claude.startedAt + 10 * SECOND;
      expect((await silentSources(store, now)).map((s) => s.runId)).toEqual(['run-codex']);
      now = claude.startedAt + 10 * SECOND + 1;
      const silent = await silentSources(store, now);
      expect(silent.find((s) => s.runId === 'run-claude')).toEqual({
        runId: 'run-claude',
        flow: 'examples/demo.prose',
        flowName: 'fix things',
        origin: 'runtime:claude-code',
        taskId: 'fix',
        attempt: 1,
        lastSeenAt: null,
        silentSince: claude.startedAt,
        silentMs: 10 * SECOND + 1,
        expectedEveryMs: 5 * SECOND,
      });

      now = claude.startedAt + 4 * 60 * SECOND;
      const api = readApi(
        store,
        () => Promise.resolve(null),
        () => now,
      );
      const row = (await api.listRuns({})).items.find((r) => r.id === 'run-claude')!;
      expect(silenceWords(row.telemetrySilence!)).toBe('no telemetry since the attempt started 4 min ago (expected every 5 s)');
      expect((await api.getRun({ runId: 'run-claude' }))!.run.telemetrySilence).toMatchObject({ lastSeenAt: null, taskId: 'fix', attempt: 1 });

      // The attempt ends: nothing is expected of its CLI any more.
      await append(store, claude.run, { type: 'attemptSucceeded', ...REF, attempt: 1, durationMs: 1_000 } as HivewatchEvent);
      expect((await silentSources(store, now)).map((s) => s.runId)).toEqual(['run-codex']);
    });

    it('is never silent when its CLI was started without an exporter', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.stores.push(store);
      const { startedAt } = await runningAttempt(store, 'run-off', undefined);
      expect((await store.getRun('run-off'))!.attempts[0]!.telemetryOrigin).toBeNull();
      now = startedAt + 60 * 60 * SECOND;
      expect(await silentSources(store, now)).toEqual([]);
    });

    it('is judged by its records once one arrived', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.stores.push(store);
      const { startedAt } = await runningAttempt(store, 'run-heard', 'runtime:claude-code');
      expect((await store.getRun('run-heard'))!.attempts[0]!.telemetryOrigin).toBe('runtime:claude-code');
      // A record arrives 8 s after the start: not silent 10 s after the start, nor 10 s after the record.
      now = startedAt + 8 * SECOND;
      await new OtelIngester(store, { now: () => now, quietMs: 120 * SECOND }).ingest(linkedPrompt('run-heard', now - SECOND), null);
      now = startedAt + 18 * SECOND;
      expect(await silentSources(store, now)).toEqual([]);
      now = startedAt + 18 * SECOND + 1;
      expect(await silentSources(store, now)).toMatchObject([
        { runId: 'run-heard', lastSeenAt: startedAt + 8 * SECOND, silentSince: startedAt + 8 * SECOND, silentMs: 10 * SECOND + 1 },
      ]);
    });

    it('fires telemetry-silent-longer-than once, and resolves when the attempt ends', async () => {
      const clock = new ManualClock(T0);
      const store = await openStore({ path: await engine.fresh(), now: clock.now });
      open.stores.push(store);
      const receiver = new TestReceiver();
      open.receivers.push(receiver);
      const url = await receiver.start();
      const alerts = new AlertEngine({ store, now: clock.now, host: 'host-a' });
      await alerts.pump();
      const { run, startedAt } = await runningAttempt(store, 'run-alerted', 'runtime:claude-code');
      await addAlertRule(store, { when: 'telemetry-silent-longer-than=30s', flow: 'examples/demo.prose', webhook: `${url}/hook`, throttle: '0' }, 'test', T0);

      clock.value = startedAt + 30 * SECOND;
      await alerts.pump();
      expect(receiver.requests).toHaveLength(0);

      clock.value = startedAt + 30 * SECOND + 1;
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies()).toMatchObject([
        {
          kind: 'fire',
          subject: 'telemetry:run-alerted/fix/1',
          facts: { runId: 'run-alerted', taskId: 'fix', origin: 'runtime:claude-code', lastSeenAt: null, expectedEveryMs: 5_000 },
        },
      ]);
      expect(receiver.bodies()[0]!.title).toBe(
        'Run run-alerted of fix things: the claude-code CLI of task fix attempt 1 has sent no telemetry since the attempt started 30 s ago (expected every 5 s)',
      );

      await append(store, run, { type: 'attemptSucceeded', ...REF, attempt: 1, durationMs: 1_000 } as HivewatchEvent);
      await alerts.pump();
      await alerts.pump();
      expect(receiver.bodies().map((b) => b.kind)).toEqual(['fire', 'resolve']);
      expect(receiver.bodies()[1]!.title).toBe(`Resolved: ${receiver.bodies()[0]!.title} (the attempt ended)`);
    });
  });
}
