import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_REQUESTED } from '../../base/approval-wait.js';
import type { HivewatchEvent } from '../../base/events.js';
import type { TelemetryRecord } from '../../otel/receive/decode.js';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { readApi } from '../read-api.js';
import { silentSources } from './health.js';

/**
 * Telemetry health on every store engine, with an injected clock: an open session is silent only
 * once nothing came for more than twice its exporter's interval (Claude Code: 5 s, Codex: 1 s), speaks again
 * with its next payload, and is not silent while a permission prompt explains it. A preset
 * attempt whose CLI's session went quiet (and was ended by the quiet period) while the attempt
 * still runs reads silent on the flow run, until the attempt ends. The runs API carries it.
 */

const harness = testEngines('telemetry_health');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const T0 = Date.UTC(2026, 10, 29, 9, 0);
const QUIET_MS = 2 * 60_000;
const PARENT = { runId: 'run-preset', taskId: 'fix', attempt: 1 };

const open: HivewatchStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const prompt = (session: string, t0: number): TelemetryRecord[] =>
  claudeCodeLogs(
    [
      ['user_prompt', { 'prompt.id': 'p-1', prompt_length: '5' }],
      ['api_request', { model: 'claude-sonnet-4-5', duration_ms: '900', cost_usd: '0.01' }],
    ],
    session,
    t0,
  );

const linked = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({ ...r, resource: { ...r.resource, 'hivewatch.run_id': PARENT.runId, 'hivewatch.task_id': PARENT.taskId, 'hivewatch.attempt': '1' } }));

for (const engine of harness.engines) {
  describe(`telemetry health on ${engine.name}`, () => {
    it('an open session is silent past twice its interval, not before, and speaks again with its next payload', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.push(store);
      const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
      const runId = (await ingester.ingest(prompt('s-1', T0 - 5_000), null)).runIds[0]!;
      const api = readApi(
        store,
        () => Promise.resolve(null),
        () => now,
      );

      now = T0 + 10_000;
      expect(await silentSources(store, now)).toEqual([]);
      now = T0 + 10_001;
      expect(await silentSources(store, now)).toEqual([
        {
          runId,
          flow: 'external:claude-code',
          flowName: expect.any(String),
          origin: 'runtime:claude-code',
          taskId: null,
          attempt: null,
          lastSeenAt: T0,
          silentSince: T0,
          silentMs: 10_001,
          expectedEveryMs: 5_000,
        },
      ]);
      now = T0 + 100_000;
      const [row] = (await api.listRuns({})).items;
      expect(row).toMatchObject({ id: runId, telemetrySilence: { silentMs: 100_000, lastSeenAt: T0, expectedEveryMs: 5_000, origin: 'runtime:claude-code' } });
      expect((await api.getRun({ runId }))!.run.telemetrySilence).toMatchObject({ silentMs: 100_000 });

      await ingester.ingest(claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-2', prompt_length: '5' }]], 's-1', now - 2_000), null);
      expect(await silentSources(store, now + 10_000)).toEqual([]);
      expect((await api.listRuns({})).items[0]!.telemetrySilence).toBeUndefined();
    });

    it('a Codex session is silent past 2 s (its exporter sends every second) while a Claude Code session as old is not', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.push(store);
      const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
      const codex = prompt('c-1', T0 - 5_000).map((r) => ({
        ...r,
        name: r.name.replace('claude_code.', 'codex.'),
        resource: { ...r.resource, 'service.name': 'codex_exec' },
        attributes: { ...r.attributes, 'conversation.id': 'c-1' },
      }));
      const codexRun = (await ingester.ingest(codex, null)).runIds[0]!;
      await ingester.ingest(prompt('s-4', T0 - 5_000), null);
      now = T0 + 2_000;
      expect(await silentSources(store, now)).toEqual([]);
      now = T0 + 2_001;
      expect(await silentSources(store, now)).toMatchObject([{ runId: codexRun, origin: 'runtime:codex-cli', silentMs: 2_001, expectedEveryMs: 1_000 }]);
      now = T0 + 9_000;
      expect((await silentSources(store, now)).map((s) => s.origin)).toEqual(['runtime:codex-cli']);
    });

    it('a session waiting for approval is not silent: a person, not the exporter, holds it', async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.push(store);
      const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
      const runId = (
        await ingester.ingest(
          claudeCodeLogs(
            [
              ['user_prompt', { 'prompt.id': 'p-1' }],
              ['hook_execution_start', { hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
            ],
            's-2',
            T0 - 5_000,
          ),
          null,
        )
      ).runIds[0]!;
      const events = await store.getEvents(runId);
      expect(events.some((e) => e.type === 'externalEvent' && e.name === APPROVAL_REQUESTED)).toBe(true);
      now = T0 + 60_000;
      expect(await silentSources(store, now)).toEqual([]);
    });

    it("a preset attempt's CLI gone quiet reads silent on the flow run until the attempt ends", async () => {
      let now = T0;
      const store = await openStore({ path: await engine.fresh(), now: () => now });
      open.push(store);
      const run = new JournalBuilder(PARENT.runId, { start: T0 - 60_000 }).start();
      run.push({ type: 'stepStarted', step: 1, frontier: [] });
      run.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: PARENT.taskId, name: 'fix', agent: 'coder', maxAttempts: 3 });
      run.push({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: PARENT.taskId, attempt: 1 });
      await store.appendEvents(run.events);
      const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
      const sessionRun = (await ingester.ingest(linked(prompt('s-3', T0 - 5_000)), null)).runIds[0]!;

      // The quiet period ends the session; its CLI, still running its attempt, sent nothing since.
      now = T0 + QUIET_MS + 1;
      expect(await ingester.sweep()).toEqual([sessionRun]);
      now = T0 + 4 * 60_000;
      expect(await silentSources(store, now)).toEqual([
        {
          runId: PARENT.runId,
          flow: expect.any(String),
          flowName: expect.any(String),
          origin: 'runtime:claude-code',
          taskId: PARENT.taskId,
          attempt: 1,
          lastSeenAt: T0,
          silentSince: T0,
          silentMs: 4 * 60_000,
          expectedEveryMs: 5_000,
        },
      ]);
      const api = readApi(
        store,
        () => Promise.resolve(null),
        () => now,
      );
      expect((await api.listRuns({})).items.find((r) => r.id === PARENT.runId)!.telemetrySilence).toMatchObject({
        taskId: PARENT.taskId,
        attempt: 1,
        silentMs: 240_000,
      });

      const ended: HivewatchEvent = { type: 'attemptSucceeded', step: 1, ordinal: 0, taskId: PARENT.taskId, attempt: 1, durationMs: 1_000 } as HivewatchEvent;
      const before = run.events.length;
      run.push(ended);
      await store.appendEvents(run.events.slice(before));
      expect(await silentSources(store, now)).toEqual([]);
    });
  });
}
