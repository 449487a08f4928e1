import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFlow } from '../../flow/check/check.js';
import { openStore } from '../../store/index.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { INVALID_FLOW_TEXT_LIMIT, invalidFlowRunEvents } from './invalid-run.js';
import { createHivewatchService } from '../service.js';

/** An attempt to run a flow that does not check is a failed run on record. */

const options = { maxSteps: 100, concurrency: 4, clock: 'real' as const, defaultAgent: null };

describe('invalidFlowRunEvents', () => {
  it('journals runStarted, errorOccurred and runFailed whose chain is that one occurrence', () => {
    const source = 'session\n  bogus: 1\n';
    const events = invalidFlowRunEvents({
      flow: 'user/x.prose',
      source,
      checked: checkFlow(source, 'user/x.prose'),
      options,
      retryOf: 'run_before',
      project: 'p',
      now: 1_000,
      runId: 'run_x',
    });
    expect(events.map((e) => [e.seq, e.type, e.ts])).toEqual([
      [1, 'runStarted', 1_000],
      [2, 'errorOccurred', 1_000],
      [3, 'runFailed', 1_000],
    ]);
    expect(events[0]).toMatchObject({
      flow: 'user/x.prose',
      flowName: 'x',
      retryOf: 'run_before',
      resumedFrom: null,
      resumeStep: 0,
      flowText: source,
      flowDigest: expect.stringMatching(/^sha256:/),
    });
    expect(events[1]).toMatchObject({
      caught: false,
      retrying: false,
      step: null,
      ordinal: null,
      taskId: null,
      error: { code: 'USER_INVALID_FLOW', correlation: { project: 'p', flow: 'user/x.prose', run: 'run_x', step: null }, context: { errorCount: 2 } },
    });
    const runFailed = events[2] as { error: { message: string }; chain: unknown[] };
    expect(runFailed.error).toEqual((events[1] as { error: unknown }).error);
    expect(runFailed.chain).toEqual([
      {
        seq: 2,
        code: 'USER_INVALID_FLOW',
        category: 'user',
        origin: 'user',
        message: runFailed.error.message,
        step: null,
        taskId: null,
        attempt: null,
        how: null,
      },
    ]);
  });

  it('keeps a large text out of the journal (saying so) and has neither text nor digest for a file that is not text', () => {
    const big = `session "x"\n${'#'.repeat(INVALID_FLOW_TEXT_LIMIT)}\n(`;
    const [started, occurred] = invalidFlowRunEvents({
      flow: 'big.prose',
      source: big,
      checked: checkFlow(big, 'big.prose'),
      options,
      retryOf: null,
      project: null,
      now: 1,
    });
    expect(started).not.toHaveProperty('flowText');
    expect(started).toHaveProperty('flowDigest');
    expect(occurred).toMatchObject({
      error: { context: { flowTextOmitted: `the flow's text (${Buffer.byteLength(big)} bytes) is larger than ${INVALID_FLOW_TEXT_LIMIT} bytes` } },
    });
    const [binary] = invalidFlowRunEvents({
      flow: 'a.out',
      source: null,
      options,
      retryOf: null,
      project: null,
      now: 1,
      checked: { errorCount: 1, diagnostics: [{ file: 'a.out', line: 1, column: 1, message: 'not a text flow file: a.out (binary)', severity: 'error' }] },
    });
    expect(binary).not.toHaveProperty('flowText');
    expect(binary).not.toHaveProperty('flowDigest');
  });
});

describe('the service records an attempt to run a flow that does not check', () => {
  let dir: string;
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hw-invalid-run-'));
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a retry of a run whose file has become invalid: 400, and a failed run linked to the one it retries', async () => {
    const file = join(dir, 'job.prose');
    writeFileSync(file, 'agent a:\n  runtime: "fake"\nsession: a\n  prompt: "build"\n  simulate: "crash"\n');
    const store = await openStore({ path: join(dir, 'h.db') });
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: dir, clock: 'virtual' });
    cleanups.push(
      () => store.close(),
      () => service.close(),
    );
    const { runId: first } = await service.startRun({ flow: 'user/job.prose' });
    expect((await service.whenFinished(first))?.status).toBe('failed');

    writeFileSync(file, 'agent a:\n  runtime: "fake"\nsession: a\n  prompt: "build"\n  retry: lots\n');
    const refused = await service.retryRun({ runId: first }).then(
      () => null,
      (error: unknown) => error as { status: number; apiCode: string; message: string },
    );
    expect(refused).toMatchObject({ status: 400, apiCode: 'invalid_flow' });
    const retry = /recorded as failed run (run_\w+)$/.exec(refused!.message)?.[1] as string;
    expect(refused!.message).toBe(`user/job.prose:5:10: retry must be a whole number such as 3, got lots; recorded as failed run ${retry}`);
    expect(await service.getRun({ runId: retry })).toMatchObject({ run: { status: 'failed', retryOf: first, lastError: { code: 'USER_INVALID_FLOW' } } });
    expect((await store.runLineage(first))?.retries.map((r) => r.id)).toEqual([retry]);
  });

  it('a binary in the flows folder is listed as not a text flow file, and starting it is a failed run with that one error', async () => {
    writeFileSync(join(dir, 'tool.prose'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    const store = await openStore({ path: join(dir, 'h.db') });
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: dir, clock: 'virtual' });
    cleanups.push(
      () => store.close(),
      () => service.close(),
    );
    const listed = (await service.listFlows()).find((f) => f.id === 'user/tool.prose');
    const message = 'not a text flow file: user/tool.prose (it holds a NUL byte at byte 4, so it is binary)';
    expect(listed).toMatchObject({ ok: false, source: '', sessions: 0, diagnostics: [{ line: 1, column: 1, severity: 'error', message }] });
    await expect(service.startRun({ flow: 'user/tool.prose' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(`user/tool.prose:1:1: ${message}; recorded as failed run run_`),
    });
    expect((await store.listRuns()).runs).toMatchObject([{ status: 'failed', lastErrorCode: 'USER_INVALID_FLOW' }]);
  });
});
