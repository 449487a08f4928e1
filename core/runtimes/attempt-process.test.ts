import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RealClock } from '../base/clock.js';
import type { EventOf, HivewatchEvent } from '../base/events.js';
import { FlowRun } from '../engine/run/run.js';
import { planOf } from '../engine/testing.js';
import { createDurableSink, openStore, type HivewatchStore } from '../store/index.js';
import { groupAlive } from './process/process-group.js';
import { processStartTime } from './process/process-identity.js';
import { createRuntimeRegistry } from './registry.js';

/**
 * An attempt's process group is on record while the attempt runs (so a crash of the host cannot
 * orphan it unrecorded), and gone when the attempt ends.
 */

let dir: string;
let store: HivewatchStore;
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('attemptProcess', () => {
  it('is committed while the attempt still runs, with the group id, /proc start time and machine; the group is gone after', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hw-attempt-process-'));
    store = await openStore({ path: join(dir, 'hivewatch.db') });
    const go = join(dir, 'go');
    const agent = join(dir, 'agent.sh');
    writeFileSync(agent, `trap '' TERM\nwhile [ ! -e ${go} ]; do sleep 0.02; done\necho finished\n`);
    const source = ['agent waiter:', '  runtime: "command"', `  command: "/bin/sh ${agent}"`, 'let out = session: waiter', '  prompt: "go"', ''].join('\n');
    const run = new FlowRun({ plan: planOf(source), registry: createRuntimeRegistry(), sink: createDurableSink(store), clock: new RealClock() });

    let checking: Promise<void> | null = null;
    const observed: { event: EventOf<'attemptProcess'>; alive: boolean; startTime: string | null; journaled: boolean }[] = [];
    const unsubscribe = store.subscribe((batch: readonly HivewatchEvent[]) => {
      const event = batch.find((e): e is EventOf<'attemptProcess'> => e.type === 'attemptProcess');
      if (!event || observed.length > 0 || checking) return;
      // The agent waits for `go`: it is alive until the check below has read the journal.
      checking = (async () => {
        const journaled = (await store.getEvents(run.runId, 0, 1000)).some((e) => e.type === 'attemptProcess');
        observed.push({ event, alive: groupAlive(event.pid), startTime: processStartTime(event.pid), journaled });
        writeFileSync(go, '');
      })();
    });
    const result = await run.start();
    unsubscribe();
    await checking;

    expect(result.status).toBe('completed');
    expect(observed).toHaveLength(1);
    const seen = observed[0]!;
    expect(seen.journaled).toBe(true);
    expect(seen.alive).toBe(true);
    expect(seen.event).toMatchObject({ taskId: '1:0', attempt: 1, hostname: hostname(), startTime: seen.startTime });
    expect(groupAlive(seen.event.pid)).toBe(false);
    const types = (await store.getEvents(run.runId, 0, 1000)).map((e) => e.type);
    expect(types.indexOf('attemptStarted')).toBeLessThan(types.indexOf('attemptProcess'));
    expect(types.indexOf('attemptProcess')).toBeLessThan(types.indexOf('attemptSucceeded'));
  });
});
