import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RealClock } from '../base/clock.js';
import { FlowRun } from '../engine/run/run.js';
import { MemorySink } from '../engine/run/sinks.js';
import { ofType, planOf, typesOf } from '../engine/testing.js';
import { groupAlive } from './process/process-group.js';
import { createRuntimeRegistry } from './registry.js';

/**
 * What a real subprocess answers after it was told to stop (it handles SIGTERM, prints and exits
 * by itself) is kept on the record and acted on by nothing: a stale receipt after the operator's
 * cancel (rule 12), what a sibling-cancelled attempt reported (F6). And the fake runtime's agent,
 * a real subprocess, is journaled like any other (`attemptProcess`).
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-late-answer-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** An agent that, told to stop, answers `answer` on stdout and exits `code` by itself; `ready` says its trap is installed. */
function politeAgent(name: string, answer: string, code: number): { script: string; ready: string } {
  const ready = join(dir, `${name}.ready`);
  const script = join(dir, `${name}.sh`);
  writeFileSync(script, `trap 'echo "${answer}"; exit ${code}' TERM\ntouch '${ready}'\nsleep 30 &\nwait\n`);
  return { script, ready };
}

function start(source: string): { run: FlowRun; sink: MemorySink; done: Promise<Awaited<ReturnType<FlowRun['start']>>> } {
  const sink = new MemorySink();
  const run = new FlowRun({ plan: planOf(source), registry: createRuntimeRegistry(), sink, clock: new RealClock() });
  return { run, sink, done: run.start() };
}

describe('answers that arrive after the stop (rules 12, F6)', () => {
  it('a run cancel: the subprocess exits 0 with output, journaled as receiptIgnoredStale with it; nothing changes', async () => {
    const agent = politeAgent('polite', 'late answer', 0);
    const { run, sink, done } = start(`agent polite:\n  command: "/bin/sh ${agent.script}"\nlet x = session: polite\n  prompt: "work"\n`);
    await expect.poll(() => existsSync(agent.ready), { message: 'the agent to install its trap', timeout: 20_000 }).toBeTruthy();
    run.cancel({ commandId: 'cmd_stop' });
    const result = await done;
    expect(result.status).toBe('cancelled');
    expect(ofType(sink.events, 'receiptIgnoredStale').map((e) => [e.taskId, e.epoch, e.currentEpoch, e.outcome, e.output, e.error])).toEqual([
      ['1:0', 0, 1, 'succeeded', 'late answer', undefined],
    ]);
    expect(ofType(sink.events, 'taskSucceeded')).toEqual([]);
    expect(ofType(sink.events, 'writeApplied')).toEqual([]);
    expect(result.channels).toEqual({});
    const types = typesOf(sink.events);
    expect(types.indexOf('receiptIgnoredStale')).toBeLessThan(types.indexOf('runCancelled'));
    expect(types.at(-1)).toBe('runCancelled');
  });

  it('a run cancel: a subprocess that exits non-zero on its own leaves its error on the stale receipt, and no errorOccurred', async () => {
    const agent = politeAgent('grumpy', 'giving up', 7);
    const { run, sink, done } = start(`agent grumpy:\n  command: "/bin/sh ${agent.script}"\nsession: grumpy\n  prompt: "work"\n`);
    await expect.poll(() => existsSync(agent.ready), { message: 'the agent to install its trap', timeout: 20_000 }).toBeTruthy();
    run.cancel();
    await done;
    const [stale] = ofType(sink.events, 'receiptIgnoredStale');
    expect(stale).toMatchObject({ outcome: 'failed', error: { code: 'RUNTIME_CRASHED', correlation: { task: '1:0', attempt: 1 } } });
    expect(ofType(sink.events, 'errorOccurred')).toEqual([]);
  });

  it('a fail-fast sibling: the stopped attempt ends attemptCancelled with what its subprocess answered', async () => {
    const agent = politeAgent('sibling', 'partial work', 0);
    const failing = join(dir, 'fail.sh');
    // Fails only once the sibling's trap is installed, so the stop reaches a process that answers.
    writeFileSync(failing, `while [ ! -e '${agent.ready}' ]; do sleep 0.01; done\necho broken >&2\nexit 3\n`);
    const { sink, done } = start(
      `agent failing:\n  command: "/bin/sh ${failing}"\nagent sibling:\n  command: "/bin/sh ${agent.script}"\nparallel:\n  session: failing\n  session: sibling\n`,
    );
    const result = await done;
    expect(result.error?.code).toBe('RUNTIME_CRASHED');
    expect(ofType(sink.events, 'attemptCancelled').map((e) => [e.taskId, e.by, e.reported])).toEqual([
      ['1:1', 'sibling', { outcome: 'succeeded', output: 'partial work' }],
    ]);
    expect(ofType(sink.events, 'errorOccurred').map((e) => e.taskId)).toEqual(['1:0']);
  });
});

describe('the fake runtime’s agent is a real subprocess on record', () => {
  it('journals attemptProcess for it (group id, start time), and the group is gone when the attempt ends', async () => {
    const { sink, done } = start('session "work"\n  agent: fake\n');
    const result = await done;
    expect(result.status).toBe('completed');
    const [spawned] = ofType(sink.events, 'attemptProcess');
    expect(spawned).toMatchObject({ taskId: '1:0', attempt: 1, startTime: expect.any(String) as string });
    expect(groupAlive(spawned?.pid as number)).toBe(false);
    const types = typesOf(sink.events);
    expect(types.indexOf('attemptProcess')).toBeGreaterThan(types.indexOf('attemptStarted'));
    expect(types.indexOf('attemptProcess')).toBeLessThan(types.indexOf('attemptSucceeded'));
  });
});
