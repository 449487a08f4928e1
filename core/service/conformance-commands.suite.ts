import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { HivewatchApi, LiveEvent } from './api.js';
import { Collector, type ConformanceContext } from './testing.js';

/**
 * The conformance suite's cases for run commands (resume, retry, skipBackoff), resuming a
 * subscription, bad input, invalid flows, saving drafts, notifications and checking a source.
 * Registered by `apiConformanceSuite` (conformance.suite.ts) inside its describe, after its
 * beforeAll, so the context is set up when these run.
 */
export function commandConformanceCases(context: ConformanceContext): void {
  let api: HivewatchApi;
  let live: Collector;
  let dir: string;
  const { finished, start, detail } = context;
  beforeAll(() => {
    ({ api, live, dir } = context);
  });

  it('resumeRun refuses a flow whose file changed since the run; retryRun runs the file as it is now', async () => {
    const file = join(dir, 'flows', 'release.prose');
    const agent = 'agent worker:\n  runtime: "fake"\n';
    writeFileSync(
      file,
      `${agent}session: worker\n  prompt: "build"\nsession: worker\n  prompt: "test"\nsession: worker\n  prompt: "release"\n  simulate: "crash"\n`,
    );
    const failedId = await start('user/release.prose');
    await finished(failedId);
    expect((await detail(failedId)).run.status).toBe('failed');
    const started = live.ofRun(failedId).find((e) => e.type === 'runStarted');
    expect(started).toMatchObject({ flowDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), flowText: expect.stringContaining('prompt: "release"') });

    writeFileSync(file, `${agent}session: worker\n  prompt: "deploy to production"\n`);
    await expect(api.resumeRun({ runId: failedId })).rejects.toMatchObject({
      status: 409,
      apiCode: 'not_resumable',
      message: expect.stringMatching(
        new RegExp(
          `^the flow changed since run ${failedId} ran it \\(sha256:[0-9a-f]{12} then, sha256:[0-9a-f]{12} now\\);.*retry it instead \\(hivewatch retry ${failedId}\\), which runs the file as it is now$`,
        ),
      ),
    });

    const retried = await api.retryRun({ runId: failedId });
    await finished(retried.runId);
    const retriedStart = live.ofRun(retried.runId).find((e) => e.type === 'runStarted');
    expect(retriedStart).toMatchObject({ retryOf: failedId, flowText: expect.stringContaining('deploy to production') });
    expect(
      live
        .ofRun(retried.runId)
        .filter((e) => e.type === 'taskStarted')
        .map((e) => (e.type === 'taskStarted' ? e.name : '')),
    ).toHaveLength(1);
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
      apiCode: 'not_resumable',
      message: `run ${happy} is completed; only failed, cancelled or interrupted runs can be resumed`,
    });
    const slow = await start('user/slow.prose', { virtualClock: false });
    await expect(api.retryRun({ runId: slow })).rejects.toMatchObject({
      status: 409,
      apiCode: 'run_active',
      message: `run ${slow} is running; cancel it or let it finish before retrying`,
    });
    await api.cancelRun({ runId: slow });
    await finished(slow);
  });

  it('bulkRuns previews, then cancels the runs it names with a command each, and refuses an ended one with why', async () => {
    const first = await start('user/slow.prose', { virtualClock: false });
    const second = await start('user/slow.prose', { virtualClock: false });
    const happy = await start('examples/01-happy-path.prose');
    await finished(happy);
    const runIds = [first, second, happy];
    expect(await api.bulkRuns({ action: 'cancel', runIds, dryRun: true })).toMatchObject({ dryRun: true, matched: 3, done: 2, refused: 1 });
    const result = await api.bulkRuns({ action: 'cancel', runIds });
    expect(result.results.map((r) => r.outcome)).toEqual(['done', 'done', 'refused']);
    expect(result.results[2]).toEqual({ runId: happy, outcome: 'refused', message: `run ${happy} is completed; nothing to cancel` });
    await Promise.all([finished(first), finished(second)]);
    for (const [i, runId] of [first, second].entries()) {
      expect(live.ofRun(runId).find((e) => e.type === 'cancelRequested')).toMatchObject({ commandId: result.results[i]?.commandId });
    }
    await expect(api.bulkRuns({ action: 'cancel' })).rejects.toMatchObject({
      status: 400,
      apiCode: 'invalid_input',
      message: 'give either runIds or where, not both and not neither',
    });
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
        // The attempt is on record as a failed run (pinned below).
        expect.stringMatching(
          /^user\/bad\.prose:1:1: session needs a prompt: write session "\.\.\." or name an agent with session: name \(and 1 more\); recorded as failed run run_\w+$/,
        ) as never,
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
        'status[1]: must be one of queued, running, cancelling, completed, failed, cancelled, interrupted, waiting-limit, waiting-approval',
      ],
      [
        () => api.listRuns({ sort: 'fastest' as never }),
        400,
        'invalid_input',
        'sort: must be one of -started, started, -ended, ended, -duration, duration, -errors, errors, -attempts, attempts, -step, step, status, -status, flow, -flow',
      ],
      [() => api.cancelRun({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
      [() => api.retryRun({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
      [() => api.resumeRun({ runId: 'run doesnotexist' }), 400, 'invalid_input', 'runId: must be a run id (letters, digits, _ . : -)'],
      [() => api.getEvents({ runId: 'run_doesnotexist' }), 404, 'run_not_found', 'no run run_doesnotexist'],
      [() => api.skipBackoff({ runId: 'run_x', taskId: 'first' }), 400, 'invalid_input', 'taskId: must be a task id like "1:0" (step:ordinal)'],
      [() => api.errorCounts({ by: 'color' as never }), 400, 'invalid_input', 'by: must be one of category, origin, code, flow, handled, run, task'],
      [() => api.countRuns({ code: 'not a code' }), 400, 'invalid_input', 'code: must be an error code like RUNTIME_TIMEOUT'],
      [
        () => api.listRuns({ anyCategory: 'weather' as never }),
        400,
        'invalid_input',
        'anyCategory: must be one of system, runtime, agent, scope, verification, git, user, policy',
      ],
      [() => api.failureCounts({ by: 'task' as never }), 400, 'invalid_input', 'by: must be one of code, rootCode, category, origin, flow'],
      [() => api.failureCounts({ by: 'code', limit: 0 }), 400, 'invalid_input', 'limit: must be at least 1'],
      [() => api.errorSeries({ bucket: 'week' as never, stackBy: 'code' }), 400, 'invalid_input', 'bucket: must be one of minute, hour, day'],
      [
        () => api.errorSeries({ bucket: 'minute', stackBy: 'code', since: 0, until: 8.64e15 }),
        400,
        'invalid_input',
        expect.stringMatching(/buckets requested; at most 10000/) as never,
      ],
      [() => api.listErrors({ cursor: 'garbage' }), 400, 'invalid_input', 'invalid cursor'],
      [() => api.checkFlow({ source: 42 } as never), 400, 'invalid_input', 'source: must be a string'],
    ];
    for (const [call, status, code, message] of cases) {
      await expect(call()).rejects.toMatchObject({ status, apiCode: code, message });
    }
    expect(await api.getRun({ runId: 'run_doesnotexist' })).toBeNull();
  });

  it('starting a flow that does not check is refused with 400 and on record as a failed run (USER_INVALID_FLOW, its diagnostics, a chain of one)', async () => {
    const refused = await api.startRun({ flow: 'user/bad.prose', maxSteps: 7 }).then(
      () => null,
      (error: unknown) => error as { status: number; apiCode: string; message: string },
    );
    expect(refused).toMatchObject({ status: 400, apiCode: 'invalid_flow' });
    const runId = /recorded as failed run (run_\w+)$/.exec(refused?.message ?? '')?.[1] as string;
    expect((await finished(runId)).type).toBe('runFailed');
    const d = await detail(runId);
    expect(d.run).toMatchObject({
      flow: 'user/bad.prose',
      status: 'failed',
      maxSteps: 7,
      step: 0,
      attempts: 0,
      errorCount: 1,
      lastError: { code: 'USER_INVALID_FLOW' },
    });
    const events = await api.getEvents({ runId });
    expect(events.map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
    expect(events[1]).toMatchObject({
      error: {
        code: 'USER_INVALID_FLOW',
        context: { errorCount: 2, diagnostics: [{ file: 'user/bad.prose', line: 1, column: 1, severity: 'error' }, { file: 'user/bad.prose' }] },
      },
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
      status: 409,
      apiCode: 'flow_exists',
      message: 'user/my-draft.prose already exists; save with overwrite to replace it',
    });
    expect((await api.listFlows()).find((f) => f.id === 'user/my-draft.prose')?.source).toBe(draft);
    const replaced = await api.saveFlow({ name: 'my-draft.prose', source: draft.replace('saved draft', 'second'), overwrite: true });
    expect(replaced.source).toContain('second');

    const refusals: [() => Promise<unknown>, number, string, string][] = [
      [
        () => api.saveFlow({ name: '../escape', source: draft }),
        400,
        'invalid_input',
        'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)',
      ],
      [
        () => api.saveFlow({ name: 'sub/dir', source: draft }),
        400,
        'invalid_input',
        'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)',
      ],
      [
        () => api.saveFlow({ name: '.hidden', source: draft }),
        400,
        'invalid_input',
        'name: must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)',
      ],
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
      await expect(call()).rejects.toMatchObject({ status, apiCode: code, message });
    }
    expect((await api.listFlows()).map((f) => f.id)).not.toContain('user/broken.prose');
  });

  it('notifications are on for every flow until muted; mutes are kept in the database', async () => {
    expect(await api.getNotificationSettings()).toEqual({ mutedFlows: [] });
    expect(await api.setFlowMuted({ flow: 'user/slow.prose', muted: true })).toEqual({ mutedFlows: ['user/slow.prose'] });
    expect(await api.setFlowMuted({ flow: 'examples/03-flaky-tests.prose', muted: true })).toEqual({
      mutedFlows: ['examples/03-flaky-tests.prose', 'user/slow.prose'],
    });
    expect(await api.setFlowMuted({ flow: 'user/slow.prose', muted: false })).toEqual({ mutedFlows: ['examples/03-flaky-tests.prose'] });
    expect(await api.getNotificationSettings()).toEqual({ mutedFlows: ['examples/03-flaky-tests.prose'] });
    await expect(api.setFlowMuted({ flow: 'user/slow.prose' } as never)).rejects.toMatchObject({
      status: 400,
      apiCode: 'invalid_input',
      message: 'muted: is required',
    });
    await api.setFlowMuted({ flow: 'examples/03-flaky-tests.prose', muted: false });
  });

  it('checks a flow from its source', async () => {
    expect(await api.checkFlow({ source: 'agent a:\n  runtime: "fake"\nsession: a\n  prompt: "hi"\n', file: 'draft.prose' })).toEqual({
      ok: true,
      diagnostics: [],
      highlight: [
        { line: 1, column: 1, length: 5, kind: 'keyword' },
        { line: 1, column: 7, length: 1, kind: 'name' },
        { line: 1, column: 8, length: 1, kind: 'punct' },
        { line: 2, column: 3, length: 7, kind: 'property' },
        { line: 2, column: 10, length: 1, kind: 'punct' },
        { line: 2, column: 12, length: 6, kind: 'string' },
        { line: 3, column: 1, length: 7, kind: 'keyword' },
        { line: 3, column: 8, length: 1, kind: 'punct' },
        { line: 3, column: 10, length: 1, kind: 'name' },
        { line: 4, column: 3, length: 6, kind: 'property' },
        { line: 4, column: 9, length: 1, kind: 'punct' },
        { line: 4, column: 11, length: 4, kind: 'string' },
      ],
    });
    const bad = await api.checkFlow({ source: 'session "x" (retry: "many")\n' });
    expect(bad.ok).toBe(false);
    expect(bad.diagnostics[0]).toMatchObject({ file: 'flow.prose', line: 1, severity: 'error' });
  });
}
