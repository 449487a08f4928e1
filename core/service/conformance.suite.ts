import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchApi, HivewatchEvent, LiveEvent, RunDetail } from './api.js';

/**
 * The one API conformance suite. It is run against the service in-process, through the HTTP
 * client over a real server, and over IPC, each time with a fresh database, the bundled examples
 * and a folder of test flows. Runs use the real fake runtime (subprocesses); timing-sensitive
 * parts use the virtual clock, or a delay long enough (an hour, a minute) that the state under
 * test surely holds; nothing sleeps and nothing asserts a duration.
 */

export interface HarnessOptions {
  dbPath: string;
  examplesDir: string;
  userFlowsDir: string;
}

export interface ApiHarness {
  api: HivewatchApi;
  close(): Promise<void>;
}

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

/** Test flows written into the operator's folder (`user/<file>`). */
export const TEST_FLOWS: Record<string, string> = {
  // Two tasks in flight for a minute: cancel lands during the step (rules 9–11).
  'slow.prose': `agent worker:
  runtime: "fake"

let results = parallel (on-fail: "continue"):
  a = session: worker
    prompt: "Slow A"
    simulate: "slow:60s"
  b = session: worker
    prompt: "Slow B"
    simulate: "slow:60s"
session: worker
  prompt: "Never reached"
`,
  // The first attempt crashes and the retry waits an hour (real clock): surely waiting in backoff.
  'backoff.prose': `agent worker:
  runtime: "fake"

session: worker
  prompt: "Call the slow API"
  retry: 1
  backoff: "fixed"
  delay: "1h"
  max-delay: "2h"
  simulate: "crash, ok"
`,
  'bad.prose': `session
  bogus: 1
`,
};

/** Collects a live subscription; `waitFor` resolves on the first matching event (seen or future). */
export class Collector {
  readonly events: LiveEvent[] = [];
  resets = 0;
  readonly ready: Promise<number>;
  readonly unsubscribe: () => void;
  private waiters: { match: (e: LiveEvent) => boolean; resolve: (e: LiveEvent) => void }[] = [];
  private resetWaiters: (() => void)[] = [];

  constructor(api: HivewatchApi, afterId?: number) {
    let markReady: (id: number) => void = () => undefined;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.unsubscribe = api.subscribe(
      (batch) => {
        this.events.push(...batch);
        for (const event of batch) {
          this.waiters = this.waiters.filter((w) => {
            if (!w.match(event)) return true;
            w.resolve(event);
            return false;
          });
        }
      },
      {
        ...(afterId !== undefined ? { afterId } : {}),
        onReset: () => {
          this.resets++;
          for (const resolve of this.resetWaiters.splice(0)) resolve();
        },
        onReady: (id) => markReady(id),
      },
    );
  }

  waitFor(match: (e: HivewatchEvent) => boolean): Promise<LiveEvent> {
    const seen = this.events.find((e) => match(e.event));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match: (e) => match(e.event), resolve }));
  }

  waitForReset(): Promise<void> {
    if (this.resets > 0) return Promise.resolve();
    return new Promise((resolve) => this.resetWaiters.push(resolve));
  }

  ofRun(runId: string): HivewatchEvent[] {
    return this.events.filter((e) => e.event.runId === runId).map((e) => e.event);
  }
}

const TERMINAL = new Set(['runCompleted', 'runFailed', 'runCancelled', 'runInterrupted']);
const COMMIT_SCOPED = new Set(['writeApplied', 'checkpointSaved', 'stepFinished']);

export function apiConformanceSuite(
  name: string,
  makeHarness: (options: HarnessOptions) => Promise<ApiHarness>,
  options: { skipReason?: string | null } = {},
): void {
  const suite = options.skipReason ? describe.skip : describe;
  if (options.skipReason) {
    console.log(`[conformance] ${name}: skipped: ${options.skipReason}`);
  }

  suite(`HivewatchApi conformance: ${name}`, () => {
    let dir: string;
    let harness: ApiHarness;
    let api: HivewatchApi;
    let live: Collector;

    const finished = async (runId: string): Promise<HivewatchEvent> =>
      (await live.waitFor((e) => e.runId === runId && TERMINAL.has(e.type))).event;

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
        id: runId, flow: 'examples/01-happy-path.prose', flowName: '01-happy-path', status: 'completed',
        step: 3, maxSteps: 100, attempts: 3, errorCount: 0, retrying: null, resumedFrom: null, retryOf: null, lastError: null,
        endingError: null,
      });
      expect(d.steps.map((s) => [s.step, s.status, s.taskIds])).toEqual([[1, 'finished', ['1:0']], [2, 'finished', ['2:1']], [3, 'finished', ['3:2']]]);
      expect(d.tasks.map((t) => [t.taskId, t.status, t.agent, t.attempts.map((a) => a.status)])).toEqual([
        ['1:0', 'succeeded', 'assistant', ['succeeded']],
        ['2:1', 'succeeded', 'assistant', ['succeeded']],
        ['3:2', 'succeeded', 'assistant', ['succeeded']],
      ]);
      expect(d.tasks[0]?.output).toBe('1. add a theme context 2. add the toggle 3. persist the choice');
      expect(d.lastSeq).toBe(live.ofRun(runId).length);

      const page = await api.listRuns({ flow: 'examples/01-happy-path.prose' });
      expect(page.items.map((r) => [r.id, r.status])).toContainEqual([runId, 'completed']);
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
      expect(d.run.endingError).toMatchObject({ code: 'RUNTIME_CRASHED', category: 'runtime', origin: 'runtime:fake', rootCode: 'RUNTIME_CRASHED', taskId: expect.any(String) });
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
      expect((await api.listRuns({ anyCode: 'RUNTIME_CRASHED', anyCategory: 'runtime', flow: '05-try-catch-finally' })).items.map((r) => r.id)).toContain(runId);
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
      expect((await api.errorCounts({ by: 'handled', runId })).map((c) => [c.key, c.count])).toEqual([['handled', 1], ['unhandled', 1]]);
      const groups = await api.errorGroups({ runId });
      expect(groups.every((g) => g.code === 'RUNTIME_CRASHED' && g.category === 'runtime')).toBe(true);
      expect(groups.reduce((sum, g) => sum + g.count, 0)).toBe(2);
      expect(groups.reduce((sum, g) => sum + g.unhandled, 0)).toBe(1);
      // One failure for the run, however many occurrences it had.
      expect(await api.failureCounts({ by: 'code', runId })).toEqual({ total: 1, rows: [{ key: 'RUNTIME_CRASHED', count: 1, label: null, rootCode: 'RUNTIME_CRASHED' }] });
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
      expect(events.filter((e) => e.type === 'attemptProcess').map((e) => (e as { ordinal?: number }).ordinal).sort()).toEqual([0, 1]);
      const [requested, cancelling, failA, failB, cancelled] = afterCancel;
      expect(requested).toMatchObject({ commandId: ack.commandId, reason: 'operator test', alreadyCancelling: false });
      expect(cancelling).toMatchObject({ epoch: 1, commandId: ack.commandId });
      for (const [failed, ordinal] of [[failA, 0], [failB, 1]] as const) {
        expect(failed).toMatchObject({ ordinal, cancelled: true, error: { code: 'SYSTEM_CANCELLED' } });
      }
      expect(cancelled).toMatchObject({ cause: { commandId: ack.commandId, reason: 'operator test' }, correlation: { run: runId, step: 1, epoch: 1 } });
      expect(events.filter((e) => COMMIT_SCOPED.has(e.type))).toEqual([]);

      const d = await detail(runId);
      expect(d.run.status).toBe('cancelled');
      expect(d.tasks.map((t) => [t.taskId, t.status])).toEqual([['1:0', 'cancelled'], ['1:1', 'cancelled']]);
      expect(d.steps.map((s) => s.status)).toEqual(['cancelled']);

      const again = await api.cancelRun({ runId });
      expect(again).toMatchObject({ accepted: false, message: `run ${runId} is cancelled; nothing to cancel` });
    });

    it('resumeRun refuses a flow whose file changed since the run; retryRun runs the file as it is now', async () => {
      const file = join(dir, 'flows', 'release.prose');
      const agent = 'agent worker:\n  runtime: "fake"\n';
      writeFileSync(file, `${agent}session: worker\n  prompt: "build"\nsession: worker\n  prompt: "test"\nsession: worker\n  prompt: "release"\n  simulate: "crash"\n`);
      const failedId = await start('user/release.prose');
      await finished(failedId);
      expect((await detail(failedId)).run.status).toBe('failed');
      const started = live.ofRun(failedId).find((e) => e.type === 'runStarted');
      expect(started).toMatchObject({ flowDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), flowText: expect.stringContaining('prompt: "release"') });

      writeFileSync(file, `${agent}session: worker\n  prompt: "deploy to production"\n`);
      await expect(api.resumeRun({ runId: failedId })).rejects.toMatchObject({
        status: 409,
        code: 'not_resumable',
        message: expect.stringMatching(
          new RegExp(`^the flow changed since run ${failedId} ran it \\(sha256:[0-9a-f]{12} then, sha256:[0-9a-f]{12} now\\);.*retry it instead \\(hivewatch retry ${failedId}\\), which runs the file as it is now$`),
        ),
      });

      const retried = await api.retryRun({ runId: failedId });
      await finished(retried.runId);
      const retriedStart = live.ofRun(retried.runId).find((e) => e.type === 'runStarted');
      expect(retriedStart).toMatchObject({ retryOf: failedId, flowText: expect.stringContaining('deploy to production') });
      expect(live.ofRun(retried.runId).filter((e) => e.type === 'taskStarted').map((e) => (e.type === 'taskStarted' ? e.name : ''))).toHaveLength(1);
      expect((await detail(retried.runId)).run.status).toBe('completed');
    });

    it('retryRun and resumeRun start runs linked to the original', async () => {
      const failedId = await start('examples/05-try-catch-finally.prose');
      await finished(failedId);

      const retried = await api.retryRun({ runId: failedId });
      expect(retried.runId).not.toBe(failedId);
      await finished(retried.runId);
      expect((await detail(retried.runId)).run).toMatchObject({ retryOf: failedId, resumedFrom: null, flow: 'examples/05-try-catch-finally.prose' });

      const resumed = await api.resumeRun({ runId: failedId });
      await finished(resumed.runId);
      const r = await detail(resumed.runId);
      expect(r.run).toMatchObject({ resumedFrom: failedId, retryOf: null, status: 'failed' });
      const started = live.ofRun(resumed.runId).find((e) => e.type === 'runStarted');
      expect(started).toMatchObject({ resumedFrom: failedId });

      const linked = await api.listRuns({ text: failedId });
      expect(linked.items.map((x) => x.id)).toContain(failedId);

      const happy = await start('examples/01-happy-path.prose');
      await finished(happy);
      await expect(api.resumeRun({ runId: happy })).rejects.toMatchObject({
        status: 409,
        code: 'not_resumable',
        message: `run ${happy} is completed; only failed, cancelled or interrupted runs can be resumed`,
      });
      const slow = await start('user/slow.prose', { virtualClock: false });
      await expect(api.retryRun({ runId: slow })).rejects.toMatchObject({
        status: 409,
        code: 'run_active',
        message: `run ${slow} is running; cancel it or let it finish before retrying`,
      });
      await api.cancelRun({ runId: slow });
      await finished(slow);
    });

    it('skipBackoff ends the wait of a task in backoff; the run shows it retrying until then', async () => {
      const runId = await start('user/backoff.prose', { virtualClock: false });
      const scheduled = (await live.waitFor((e) => e.runId === runId && e.type === 'retryScheduled')).event;
      expect(scheduled).toMatchObject({ taskId: '1:0', delayMs: 3_600_000, strategy: 'fixed' });

      const waiting = await detail(runId);
      expect(waiting.run.status).toBe('running');
      expect(waiting.run.retrying).toEqual({ taskId: '1:0', delayMs: 3_600_000, nextAttemptAt: (scheduled as { nextAttemptAt: number }).nextAttemptAt });
      expect(waiting.tasks[0]).toMatchObject({ status: 'waiting', maxAttempts: 2 });
      expect(waiting.tasks[0]?.attempts.map((a) => [a.status, a.delayAfterMs, a.strategy])).toEqual([['failed', 3_600_000, 'fixed']]);
      const listed = await api.listRuns({ status: ['running'] });
      expect(listed.items.find((r) => r.id === runId)?.retrying).toEqual(waiting.run.retrying);

      const notWaiting = await api.skipBackoff({ runId, taskId: '9:9' });
      expect(notWaiting).toMatchObject({ accepted: false, message: `task 9:9 of run ${runId} is not waiting in backoff` });

      const ack = await api.skipBackoff({ runId, taskId: '1:0' });
      expect(ack.accepted).toBe(true);
      expect((await finished(runId)).type).toBe('runCompleted');
      const skipped = live.ofRun(runId).find((e) => e.type === 'backoffSkipped');
      expect(skipped).toMatchObject({ taskId: '1:0', commandId: ack.commandId });
      const done = await detail(runId);
      expect(done.run.retrying).toBeNull();
      expect(done.tasks[0]?.attempts.map((a) => a.status)).toEqual(['failed', 'succeeded']);

      const late = await api.skipBackoff({ runId, taskId: '1:0' });
      expect(late).toMatchObject({ accepted: false, message: `run ${runId} is completed; it is not executed by this process` });
    });

    it('resumes a subscription after an id with no gap and no duplicate; an unknown id resets', async () => {
      const runId = await start('examples/01-happy-path.prose');
      await finished(runId);
      const ofRun = live.events.filter((e) => e.event.runId === runId);
      const middle = ofRun[4] as LiveEvent;
      const resumed = new Collector(api, middle.id);
      await resumed.ready;
      await resumed.waitFor((e) => e.runId === runId && e.type === 'runCompleted');
      const expected = live.events.filter((e) => e.id > middle.id && e.id <= (ofRun[ofRun.length - 1] as LiveEvent).id);
      expect(resumed.events.slice(0, expected.length).map((e) => e.id)).toEqual(expected.map((e) => e.id));
      expect(resumed.events.slice(0, expected.length).map((e) => e.event)).toEqual(expected.map((e) => e.event));
      expect(resumed.resets).toBe(0);
      resumed.unsubscribe();

      const future = new Collector(api, 1_000_000_000);
      await future.waitForReset();
      await future.ready;
      expect(future.resets).toBe(1);
      const next = await start('examples/01-happy-path.prose');
      await future.waitFor((e) => e.runId === next && e.type === 'runCompleted');
      expect(future.events[0]?.event).toMatchObject({ runId: next, seq: 1, type: 'runStarted' });
      future.unsubscribe();
    });

    it('rejects bad input with exact messages', async () => {
      const cases: [() => Promise<unknown>, number, string, string][] = [
        [() => api.startRun({ flow: '../../etc/passwd' }), 400, 'invalid_input', 'flow: must be a flow id: examples/<file>.prose or user/<file>.prose'],
        [() => api.startRun({ flow: 'examples/nope.prose' }), 404, 'flow_not_found', 'no flow examples/nope.prose'],
        [
          () => api.startRun({ flow: 'user/bad.prose' }),
          400,
          'invalid_flow',
          // The attempt is on record as a failed run (issue #19 part 7; pinned below).
          expect.stringMatching(/^user\/bad\.prose:1:1: session needs a prompt: write session "\.\.\." or name an agent with session: name \(and 1 more\); recorded as failed run run_\w+$/) as never,
        ],
        [() => api.startRun({ flow: 'examples/01-happy-path.prose', maxSteps: 0 }), 400, 'invalid_input', 'maxSteps: must be at least 1'],
        [() => api.startRun({ flow: 'examples/01-happy-path.prose', concurrency: 2.5 }), 400, 'invalid_input', 'concurrency: must be a whole number'],
        [() => api.startRun({ flow: 'examples/01-happy-path.prose', color: 'red' } as never), 400, 'invalid_input', 'unknown field "color"'],
        [() => api.startRun({} as never), 400, 'invalid_input', 'flow: is required'],
        [() => api.listRuns({ limit: 5000 }), 400, 'invalid_input', 'limit: must be at most 1000'],
        [
          () => api.listRuns({ status: ['running', 'bogus' as never] }),
          400,
          'invalid_input',
          'status[1]: must be one of queued, running, cancelling, completed, failed, cancelled, interrupted',
        ],
        [() => api.listRuns({ sort: 'fastest' as never }), 400, 'invalid_input', 'sort: must be one of -started, started, -ended, ended, -duration, duration, -errors, errors, -attempts, attempts, -step, step, status, -status, flow, -flow'],
        [() => api.cancelRun({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
        [() => api.retryRun({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
        [() => api.resumeRun({ runId: 'run doesnotexist' }), 400, 'invalid_input', 'runId: must be a run id (letters, digits, _ . : -)'],
        [() => api.getEvents({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
        [() => api.skipBackoff({ runId: 'run_x', taskId: 'first' }), 400, 'invalid_input', 'taskId: must be a task id like "1:0" (step:ordinal)'],
        [() => api.errorCounts({ by: 'color' as never }), 400, 'invalid_input', 'by: must be one of category, origin, code, flow, handled, run, task'],
        [() => api.countRuns({ code: 'not a code' }), 400, 'invalid_input', 'code: must be an error code like RUNTIME_TIMEOUT'],
        [() => api.listRuns({ anyCategory: 'weather' as never }), 400, 'invalid_input', 'anyCategory: must be one of system, runtime, agent, scope, verification, git, user, policy'],
        [() => api.failureCounts({ by: 'task' as never }), 400, 'invalid_input', 'by: must be one of code, rootCode, category, origin, flow'],
        [() => api.failureCounts({ by: 'code', limit: 0 }), 400, 'invalid_input', 'limit: must be at least 1'],
        [() => api.errorSeries({ bucket: 'week' as never, stackBy: 'code' }), 400, 'invalid_input', 'bucket: must be one of minute, hour, day'],
        [() => api.errorSeries({ bucket: 'minute', stackBy: 'code', since: 0, until: 8.64e15 }), 400, 'invalid_input', expect.stringMatching(/buckets requested; at most 10000/) as never],
        [() => api.listErrors({ cursor: 'garbage' }), 400, 'invalid_input', 'invalid cursor'],
        [() => api.checkFlow({ source: 42 } as never), 400, 'invalid_input', 'source: must be a string'],
      ];
      for (const [call, status, code, message] of cases) {
        await expect(call()).rejects.toMatchObject({ status, code, message });
      }
      expect(await api.getRun({ runId: 'run_doesnotexist' })).toBeNull();
    });

    it('starting a flow that does not check is refused with 400 and on record as a failed run (USER_INVALID_FLOW, its diagnostics, a chain of one)', async () => {
      const refused = await api.startRun({ flow: 'user/bad.prose', maxSteps: 7 }).then(
        () => null,
        (error: unknown) => error as { status: number; code: string; message: string },
      );
      expect(refused).toMatchObject({ status: 400, code: 'invalid_flow' });
      const runId = /recorded as failed run (run_\w+)$/.exec(refused?.message ?? '')?.[1] as string;
      expect((await finished(runId)).type).toBe('runFailed');
      const d = await detail(runId);
      expect(d.run).toMatchObject({ flow: 'user/bad.prose', status: 'failed', maxSteps: 7, step: 0, attempts: 0, errorCount: 1, lastError: { code: 'USER_INVALID_FLOW' } });
      const events = await api.getEvents({ runId });
      expect(events.map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
      expect(events[1]).toMatchObject({
        error: { code: 'USER_INVALID_FLOW', context: { errorCount: 2, diagnostics: [{ file: 'user/bad.prose', line: 1, column: 1, severity: 'error' }, { file: 'user/bad.prose' }] } },
      });
      expect(events[2]).toMatchObject({ type: 'runFailed', chain: [{ seq: 2, code: 'USER_INVALID_FLOW', how: null }] });
    });

    it('saves a draft that checks as user/<name>.prose, lists it and starts it; refuses overwrite, bad names and drafts that do not check', async () => {
      const draft = 'agent a:\n  runtime: "fake"\nsession: a\n  prompt: "saved draft"\n';
      const saved = await api.saveFlow({ name: 'my-draft', source: draft });
      expect(saved).toMatchObject({ id: 'user/my-draft.prose', name: 'my-draft', bundled: false, source: draft, ok: true });
      expect((await api.listFlows()).map((f) => f.id)).toContain('user/my-draft.prose');
      const runId = await start('user/my-draft.prose');
      expect(await finished(runId)).toMatchObject({ type: 'runCompleted' });

      await expect(api.saveFlow({ name: 'my-draft.prose', source: draft.replace('saved draft', 'second') })).rejects.toMatchObject({
        status: 409, code: 'flow_exists', message: 'user/my-draft.prose already exists; save with overwrite to replace it',
      });
      expect((await api.listFlows()).find((f) => f.id === 'user/my-draft.prose')?.source).toBe(draft);
      const replaced = await api.saveFlow({ name: 'my-draft.prose', source: draft.replace('saved draft', 'second'), overwrite: true });
      expect(replaced.source).toContain('second');

      const refusals: [() => Promise<unknown>, number, string, string][] = [
        [() => api.saveFlow({ name: '../escape', source: draft }), 400, 'invalid_input', 'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)'],
        [() => api.saveFlow({ name: 'sub/dir', source: draft }), 400, 'invalid_input', 'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)'],
        [() => api.saveFlow({ name: '.hidden', source: draft }), 400, 'invalid_input', 'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)'],
        [() => api.saveFlow({ name: 'x'.repeat(65), source: draft }), 400, 'invalid_input', 'name: must be at most 64 characters'],
        [() => api.saveFlow({ name: 'empty', source: '' }), 400, 'invalid_input', 'source: must not be empty'],
        [() => api.saveFlow({ source: draft } as never), 400, 'invalid_input', 'name: is required'],
        [
          () => api.saveFlow({ name: 'broken', source: 'session\n  bogus: 1\n' }),
          400,
          'invalid_flow',
          'user/broken.prose:1:1: session needs a prompt: write session "..." or name an agent with session: name (and 1 more); only a flow that checks is saved',
        ],
      ];
      for (const [call, status, code, message] of refusals) {
        await expect(call()).rejects.toMatchObject({ status, code, message });
      }
      expect((await api.listFlows()).map((f) => f.id)).not.toContain('user/broken.prose');
    });

    it('notifications are on for every flow until muted; mutes are kept in the database', async () => {
      expect(await api.getNotificationSettings()).toEqual({ mutedFlows: [] });
      expect(await api.setFlowMuted({ flow: 'user/slow.prose', muted: true })).toEqual({ mutedFlows: ['user/slow.prose'] });
      expect(await api.setFlowMuted({ flow: 'examples/03-flaky-tests.prose', muted: true })).toEqual({ mutedFlows: ['examples/03-flaky-tests.prose', 'user/slow.prose'] });
      expect(await api.setFlowMuted({ flow: 'user/slow.prose', muted: false })).toEqual({ mutedFlows: ['examples/03-flaky-tests.prose'] });
      expect(await api.getNotificationSettings()).toEqual({ mutedFlows: ['examples/03-flaky-tests.prose'] });
      await expect(api.setFlowMuted({ flow: 'user/slow.prose' } as never)).rejects.toMatchObject({ status: 400, code: 'invalid_input', message: 'muted: is required' });
      await api.setFlowMuted({ flow: 'examples/03-flaky-tests.prose', muted: false });
    });

    it('checks a flow from its source', async () => {
      expect(await api.checkFlow({ source: 'agent a:\n  runtime: "fake"\nsession: a\n  prompt: "hi"\n', file: 'draft.prose' })).toEqual({
        ok: true,
        diagnostics: [],
        highlight: [
          { line: 1, column: 1, length: 5, kind: 'keyword' }, { line: 1, column: 7, length: 1, kind: 'name' }, { line: 1, column: 8, length: 1, kind: 'punct' },
          { line: 2, column: 3, length: 7, kind: 'property' }, { line: 2, column: 10, length: 1, kind: 'punct' }, { line: 2, column: 12, length: 6, kind: 'string' },
          { line: 3, column: 1, length: 7, kind: 'keyword' }, { line: 3, column: 8, length: 1, kind: 'punct' }, { line: 3, column: 10, length: 1, kind: 'name' },
          { line: 4, column: 3, length: 6, kind: 'property' }, { line: 4, column: 9, length: 1, kind: 'punct' }, { line: 4, column: 11, length: 4, kind: 'string' },
        ],
      });
      const bad = await api.checkFlow({ source: 'session "x" (retry: "many")\n' });
      expect(bad.ok).toBe(false);
      expect(bad.diagnostics[0]).toMatchObject({ file: 'flow.prose', line: 1, severity: 'error' });
    });
  });
}
