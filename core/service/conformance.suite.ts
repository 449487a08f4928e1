import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchApi, HivewatchEvent, RunDetail } from './api.js';
import { commandConformanceCases } from './conformance-commands.suite.js';
import { issueConformanceCases } from './conformance-issues.suite.js';
import { alertConformanceCases } from './conformance-alerts.suite.js';
import { Collector, COMMIT_SCOPED, EXAMPLES_DIR, TERMINAL, TEST_FLOWS, type ApiHarness, type ConformanceContext, type HarnessOptions } from './testing.js';

/**
 * The one API conformance suite. It is run against the service in-process, through the HTTP
 * client over a real server, and over IPC, each time with a fresh database, the bundled examples
 * and a folder of test flows. Runs use the real fake runtime (subprocesses); timing-sensitive
 * parts use the virtual clock, or a delay long enough (an hour, a minute) that the state under
 * test surely holds; nothing sleeps and nothing asserts a duration. The harness and the shared
 * helpers are in conformance-support.ts; the commands' and inputs' cases in
 * conformance-commands.suite.ts.
 */

export { EXAMPLES_DIR, type ApiHarness, type HarnessOptions } from './testing.js';

/** Registers the suite; a transport that cannot run on this machine is simply not registered. */
export function apiConformanceSuite(name: string, makeHarness: (options: HarnessOptions) => Promise<ApiHarness>): void {
  describe(`HivewatchApi conformance: ${name}`, () => {
    let dir: string;
    let harness: ApiHarness;
    let api: HivewatchApi;
    let live: Collector;

    const finished = async (runId: string): Promise<HivewatchEvent> => (await live.waitFor((e) => e.runId === runId && TERMINAL.has(e.type))).event;

    const start = async (flow: string, extra: { virtualClock?: boolean } = { virtualClock: true }): Promise<string> =>
      (await api.startRun({ flow, ...extra })).runId;

    const detail = async (runId: string): Promise<RunDetail> => {
      const d = await api.getRun({ runId });
      if (!d) throw new Error(`no run ${runId}`);
      return d;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hivewatch-conformance-'));
      const userFlowsDir = join(dir, 'flows');
      mkdirSync(userFlowsDir);
      for (const [file, source] of Object.entries(TEST_FLOWS)) writeFileSync(join(userFlowsDir, file), source);
      harness = await makeHarness({ dbPath: join(dir, 'hivewatch.db'), examplesDir: EXAMPLES_DIR, userFlowsDir });
      api = harness.api;
      live = new Collector(api);
      await live.ready;
    });

    afterAll(async () => {
      live?.unsubscribe();
      await harness?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const context: ConformanceContext = {
      get api() {
        return api;
      },
      get live() {
        return live;
      },
      get dir() {
        return dir;
      },
      finished,
      start,
      detail,
    };

    it('lists the bundled examples and the operator flows, checked', async () => {
      const flows = await api.listFlows();
      const ids = flows.map((f) => f.id);
      expect(ids).toEqual([
        'examples/01-happy-path.prose',
        'examples/02-rate-limited-api.prose',
        'examples/03-flaky-tests.prose',
        'examples/04-parallel-fan-out.prose',
        'examples/05-try-catch-finally.prose',
        'examples/06-agent-fixes-a-test.prose',
        'user/backoff.prose',
        'user/bad.prose',
        'user/slow.prose',
      ]);
      const happy = flows[0];
      expect(happy).toMatchObject({ name: '01-happy-path', bundled: true, ok: true, sessions: 3, diagnostics: [] });
      expect(happy?.source).toContain('agent assistant:');
      const bad = flows.find((f) => f.id === 'user/bad.prose');
      expect(bad).toMatchObject({ bundled: false, ok: false });
      expect(bad?.diagnostics[0]).toMatchObject({ file: 'user/bad.prose', line: 1, column: 1, severity: 'error' });
    });

    it('starts an example run that completes; listRuns and getRun show it with its attempts', async () => {
      const runId = await start('examples/01-happy-path.prose');
      expect(runId).toMatch(/^run_/);
      expect((await finished(runId)).type).toBe('runCompleted');

      const d = await detail(runId);
      expect(d.run).toMatchObject({
        id: runId,
        flow: 'examples/01-happy-path.prose',
        flowName: '01-happy-path',
        status: 'completed',
        step: 3,
        maxSteps: 100,
        attempts: 3,
        errorCount: 0,
        retrying: null,
        resumedFrom: null,
        retryOf: null,
        lastError: null,
        endingError: null,
      });
      expect(d.steps.map((s) => [s.step, s.status, s.taskIds])).toEqual([
        [1, 'finished', ['1:0']],
        [2, 'finished', ['2:1']],
        [3, 'finished', ['3:2']],
      ]);
      expect(d.tasks.map((t) => [t.taskId, t.status, t.agent, t.attempts.map((a) => a.status)])).toEqual([
        ['1:0', 'succeeded', 'assistant', ['succeeded']],
        ['2:1', 'succeeded', 'assistant', ['succeeded']],
        ['3:2', 'succeeded', 'assistant', ['succeeded']],
      ]);
      expect(d.tasks[0]?.output).toBe('1. add a theme context 2. add the toggle 3. persist the choice');
      expect(d.lastSeq).toBe(live.ofRun(runId).length);

      const page = await api.listRuns({ flow: 'examples/01-happy-path.prose' });
      expect(page.items.map((r) => [r.id, r.status])).toContainEqual([runId, 'completed']);
      // The position a live reader follows a listed run from, without its detail (renderer/live).
      const listed = page.items.find((r) => r.id === runId);
      expect(listed?.lastSeq).toBe(d.lastSeq);
      expect(listed).toEqual(d.run);
      const byName = await api.listRuns({ flow: '01-happy-path', status: ['completed'], sort: 'started', limit: 1 });
      expect(byName.items[0]?.id).toBe(runId);

      const events = await api.getEvents({ runId, afterSeq: 2, limit: 3 });
      expect(events.map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(events.every((e) => e.runId === runId)).toBe(true);
    });

    it('shows every attempt of a retried task with the backoff journaled after it', async () => {
      const runId = await start('examples/02-rate-limited-api.prose');
      expect((await finished(runId)).type).toBe('runCompleted');
      const d = await detail(runId);
      const [fetch, sync] = d.tasks;
      expect(fetch?.attempts.map((a) => [a.attempt, a.status, a.delayAfterMs, a.error?.code ?? null])).toEqual([
        [1, 'failed', 30_000, 'RUNTIME_RATE_LIMIT'],
        [2, 'failed', 60_000, 'RUNTIME_RATE_LIMIT'],
        [3, 'failed', 120_000, 'RUNTIME_RATE_LIMIT'],
        [4, 'succeeded', null, null],
      ]);
      expect(fetch?.maxAttempts).toBe(5);
      expect(sync?.attempts.map((a) => a.delayAfterMs)).toEqual([2_000, 4_000, 8_000, 10_000, null]);
      expect(d.run.errorCount).toBe(7);
      // Wall times are real: never ahead of now, whatever the run's clock did over its backoffs.
      expect(d.run.endedWall).not.toBeNull();
      expect(d.run.startedWall).toBeLessThanOrEqual(d.run.endedWall as number);
      expect(d.run.endedWall as number).toBeLessThanOrEqual(Date.now());
      if (d.run.clock === 'virtual') expect(d.run.durationMs).toBeGreaterThanOrEqual(30_000 + 60_000 + 120_000);
      // Each journaled event carries the wall time it was journaled at (what the window shows as
      // "when"): the run's start and end walls, in order, while ts keeps the run's own clock.
      const journal = await api.getEvents({ runId });
      expect(journal[0]?.wall).toBe(d.run.startedWall);
      expect(journal.at(-1)?.wall).toBe(d.run.endedWall);
      expect(journal.every((e, i) => i === 0 || e.wall >= (journal[i - 1] as { wall: number }).wall)).toBe(true);
      if (d.run.clock === 'virtual') expect(journal.at(-1)?.ts).toBeGreaterThan(journal.at(-1)?.wall as number);
      // Every one of the 7 errors was followed by another attempt: all handled.
      expect((await api.errorCounts({ by: 'handled', runId })).map((c) => [c.key, c.count])).toEqual([['handled', 7]]);
    });

    it('counts, groups and lists the errors of a failing example', async () => {
      const runId = await start('examples/05-try-catch-finally.prose');
      const end = await finished(runId);
      expect(end.type).toBe('runFailed');
      const d = await detail(runId);
      expect(d.run).toMatchObject({ status: 'failed', lastError: { code: 'RUNTIME_CRASHED' } });
      // The ending error (rule 16): the deploy's crash, carried on by the outer catch's bare `throw`.
      expect(d.run.endingError).toMatchObject({
        code: 'RUNTIME_CRASHED',
        category: 'runtime',
        origin: 'runtime:fake',
        rootCode: 'RUNTIME_CRASHED',
        taskId: expect.any(String),
      });
      expect(d.run.endingError?.chain).toEqual([expect.objectContaining({ code: 'RUNTIME_CRASHED', rethrown: true, seq: expect.any(Number) })]);

      const byCode = await api.errorCounts({ by: 'code', runId });
      // "Download the cached build" exits 1 (caught), "Deploy to staging" crashes (ends the run).
      expect(byCode.map((c) => [c.key, c.count])).toEqual([['RUNTIME_CRASHED', 2]]);
      const global = await api.errorCounts({ by: 'category' });
      expect(global.find((c) => c.key === 'runtime')?.count).toBeGreaterThanOrEqual(2);
      const byRun = await api.errorCounts({ by: 'run', category: 'runtime', runId });
      expect(byRun).toEqual([{ key: runId, count: 2, label: '05-try-catch-finally' }]);

      // The run list filters by the ending error's code and category on the server (anyCode: any
      // occurrence); counts follow the filters.
      expect((await api.listRuns({ code: 'RUNTIME_CRASHED', status: ['failed'] })).items.map((r) => r.id)).toContain(runId);
      expect((await api.listRuns({ anyCode: 'RUNTIME_CRASHED', anyCategory: 'runtime', flow: '05-try-catch-finally' })).items.map((r) => r.id)).toContain(
        runId,
      );
      expect((await api.listRuns({ code: 'RUNTIME_TIMEOUT', flow: '05-try-catch-finally' })).items).toEqual([]);
      expect((await api.countRuns({ code: 'RUNTIME_CRASHED', flow: '05-try-catch-finally' })).byStatus.failed).toBeGreaterThanOrEqual(1);
      expect((await api.listRuns({ category: 'runtime', flow: '05-try-catch-finally', sort: '-errors', limit: 1 })).items[0]?.errorCount).toBe(2);
      expect((await api.listRuns({ code: 'AGENT_NO_CHANGES', flow: '05-try-catch-finally' })).items).toEqual([]);
      const counts = await api.countRuns({ flow: '05-try-catch-finally', status: ['completed'] });
      expect(counts.byStatus.failed).toBeGreaterThanOrEqual(1);
      expect(counts.total).toBe(counts.byStatus.completed ?? 0);
      expect(counts.byFlow.map((f) => f.flowName)).toContain('01-happy-path');
      // Both were caught by a try of the flow, but the rethrown one ended the run: it is unhandled
      // (rule 17), the download's crash that the flow recovered from is handled.
      expect((await api.errorCounts({ by: 'handled', runId })).map((c) => [c.key, c.count])).toEqual([
        ['handled', 1],
        ['unhandled', 1],
      ]);
      const groups = await api.errorGroups({ runId });
      expect(groups.every((g) => g.code === 'RUNTIME_CRASHED' && g.category === 'runtime')).toBe(true);
      expect(groups.reduce((sum, g) => sum + g.count, 0)).toBe(2);
      expect(groups.reduce((sum, g) => sum + g.unhandled, 0)).toBe(1);
      // One failure for the run, however many occurrences it had.
      expect(await api.failureCounts({ by: 'code', runId })).toEqual({
        total: 1,
        rows: [{ key: 'RUNTIME_CRASHED', count: 1, label: null, rootCode: 'RUNTIME_CRASHED' }],
      });
      const everyFailure = await api.failureCounts({ by: 'flow' });
      expect(everyFailure.rows.find((r) => r.key === 'examples/05-try-catch-finally.prose')).toMatchObject({ label: '05-try-catch-finally' });
      expect(everyFailure.total).toBe((await api.countRuns({ status: ['failed'] })).total);
      const allGroups = await api.errorGroups({ code: 'RUNTIME_CRASHED' });
      expect(allGroups.length).toBeGreaterThanOrEqual(1);
      expect(allGroups[0]).toMatchObject({ category: 'runtime', code: 'RUNTIME_CRASHED' });

      const errors = await api.listErrors({ runId });
      expect(errors.items).toHaveLength(2);
      expect(errors.items.every((e) => e.correlation.run === runId && e.runId === runId && e.flow === 'examples/05-try-catch-finally.prose')).toBe(true);
      // Both are caught by a try of the flow (the outer catch rethrows the second: not a new
      // error); the newest, rethrown one is the run's ending error.
      expect(errors.items.map((e) => [e.code, e.caught, e.retrying, e.category, e.origin, e.disposition, e.ending])).toEqual([
        ['RUNTIME_CRASHED', true, false, 'runtime', 'runtime:fake', 'unhandled', true],
        ['RUNTIME_CRASHED', true, false, 'runtime', 'runtime:fake', 'handled', false],
      ]);
      const crash = errors.items[0];
      const sameGroup = await api.listErrors({ fingerprint: crash?.fingerprint as string, runId });
      expect(sameGroup.items.map((e) => e.seq)).toContain(crash?.seq);
      expect(sameGroup.items.every((e) => e.fingerprint === crash?.fingerprint)).toBe(true);
      const paged = await api.listErrors({ runId, limit: 1 });
      expect(paged.items).toHaveLength(1);
      const next = await api.listErrors({ runId, limit: 1, cursor: paged.nextCursor as string });
      expect(next.items).toHaveLength(1);
      expect(next.items[0]?.seq).not.toBe(paged.items[0]?.seq);

      const at = d.run.startedAt;
      const series = await api.errorSeries({ bucket: 'minute', stackBy: 'code', runId, since: at - 60_000, until: at + 120_000 });
      expect(series.bucket).toBe('minute');
      expect(series.keys).toEqual(['RUNTIME_CRASHED']);
      const total = series.points.reduce((sum, p) => sum + Object.values(p.counts).reduce((a, b) => a + b, 0), 0);
      expect(total).toBe(2);
      const everywhere = await api.errorSeries({ bucket: 'hour', stackBy: 'category', since: at - 3_600_000, until: at + 3_600_000 });
      expect(everywhere.keys).toContain('runtime');
    });

    it('cancel during a step follows rules 9–11 and the subscription delivers those events in order', async () => {
      const runId = await start('user/slow.prose', { virtualClock: false });
      await live.waitFor((e) => e.runId === runId && e.type === 'attemptStarted' && e.ordinal === 1);
      const ack = await api.cancelRun({ runId, reason: 'operator test' });
      expect(ack).toMatchObject({ accepted: true });
      expect(ack.commandId).toMatch(/^cmd_/);
      expect((await finished(runId)).type).toBe('runCancelled');

      const events = live.ofRun(runId);
      // Delivered in journal order, nothing missing, nothing twice.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      const ids = live.events.filter((e) => e.event.runId === runId).map((e) => e.id);
      expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);

      const cancelAt = events.findIndex((e) => e.type === 'cancelRequested');
      // An attempt's process record is journaled once the spawner names its pid, which may be
      // after the cancel: a record of a process that did start (recovery needs it), not a step event.
      const afterCancel = events.slice(cancelAt).filter((e) => e.type !== 'attemptProcess');
      expect(afterCancel.map((e) => e.type)).toEqual(['cancelRequested', 'runCancelling', 'taskFailed', 'taskFailed', 'runCancelled']);
      expect(
        events
          .filter((e) => e.type === 'attemptProcess')
          .map((e) => (e as { ordinal?: number }).ordinal)
          .sort(),
      ).toEqual([0, 1]);
      const [requested, cancelling, failA, failB, cancelled] = afterCancel;
      expect(requested).toMatchObject({ commandId: ack.commandId, reason: 'operator test', alreadyCancelling: false });
      expect(cancelling).toMatchObject({ epoch: 1, commandId: ack.commandId });
      for (const [failed, ordinal] of [
        [failA, 0],
        [failB, 1],
      ] as const) {
        expect(failed).toMatchObject({ ordinal, cancelled: true, error: { code: 'SYSTEM_CANCELLED' } });
      }
      expect(cancelled).toMatchObject({ cause: { commandId: ack.commandId, reason: 'operator test' }, correlation: { run: runId, step: 1, epoch: 1 } });
      expect(events.filter((e) => COMMIT_SCOPED.has(e.type))).toEqual([]);

      const d = await detail(runId);
      expect(d.run.status).toBe('cancelled');
      expect(d.tasks.map((t) => [t.taskId, t.status])).toEqual([
        ['1:0', 'cancelled'],
        ['1:1', 'cancelled'],
      ]);
      expect(d.steps.map((s) => s.status)).toEqual(['cancelled']);

      const again = await api.cancelRun({ runId });
      expect(again).toMatchObject({ accepted: false, message: `run ${runId} is cancelled; nothing to cancel` });
    });

    commandConformanceCases(context);
    issueConformanceCases(context);
    alertConformanceCases(context);
  });
}
