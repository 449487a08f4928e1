import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { planOf, startRun } from '../../engine/testing.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openStore } from '../../store/open.js';
import { createDurableSink, type DurableSink } from '../../store/sink/sink.js';
import { ClaudeCodeRuntime } from './claude-code.js';
import { writeCliStandIn } from '../../testing/cli-stand-in.js';
import { HandClock } from '../../testing/hand-clock.js';

/**
 * A run waiting out a usage limit, through the engine with a clock the test moves by hand
 * (nothing passes until it says so) and a real journal: a claude-code agent (a real subprocess
 * standing in for `claude`) reports the limit with a reset at 2:05pm; the run's row then says it
 * waits until 14:06 (the end of that minute); moving the clock there starts the next attempt; a
 * cancel during the wait ends the run at once, the clock never moved. The test waits for the
 * engine's sleep itself (the clock tells it), so however long the subprocess takes to start,
 * nothing is polled against time.
 */

const dir = mkdtempSync(join(tmpdir(), 'hivewatch-limit-wait-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
// "resets 2:05pm" is printed to the minute: the reset lies inside it, so the wait ends with it.
const RESET = Date.UTC(2026, 10, 26, 14, 6, 0);
const REPORTED = "You've reached your session limit · resets 2:05pm (UTC)";

function standIn(): string {
  return writeCliStandIn(
    dir,
    'claude',
    [
      `const limited = { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: ${JSON.stringify(REPORTED)}, permission_denials: [] };`,
      "const done = { type: 'result', subtype: 'success', is_error: false, result: 'fixed', permission_denials: [] };",
      "const answer = process.env.HIVEWATCH_ATTEMPT === '1' ? limited : done;",
      'process.stdout.write(JSON.stringify(answer));',
      'process.exitCode = answer.is_error ? 1 : 0;',
    ].join('\n'),
  );
}

const open: { store: HivewatchStore; sink: DurableSink }[] = [];
afterEach(async () => {
  for (const { store, sink } of open.splice(0)) {
    await sink.close();
    await store.close();
  }
});

async function startLimited() {
  const clock = new HandClock(T0);
  const store = await openStore({ path: ':memory:', now: () => clock.now() });
  const sink = createDurableSink(store);
  open.push({ store, sink });
  const runtime = new ClaudeCodeRuntime({ now: () => clock.now(), timeZone: 'UTC' });
  const plan = planOf(`agent coder:\n  runtime: "claude-code"\n  command: "${standIn()}"\n\nsession "Fix the bug" (retry: 2)\n  agent: coder\n`);
  const started = startRun(plan, { clock, registry: { forAgent: () => runtime }, sink });
  // The run is waiting once its backoff sleeps (it journals the wait before it sleeps); a run
  // that ends first never sleeps, and says how it ended instead.
  const endedFirst = await Promise.race([clock.firstSleep.then(() => null), started.done]);
  if (endedFirst) throw new Error(`the run ended ${endedFirst.status} before it waited for the reset`);
  expect(clock.sleepers).toBe(1);
  await sink.flush();
  expect((await store.getRunRow(started.run.runId))?.waitingUntil).toBe(RESET);
  return { ...started, clock, store, sink };
}

describe('a run waiting for a usage-limit reset', () => {
  it('journals the reset as reported, shows the wait on the run, and starts the next attempt at the reset', async () => {
    const { run, clock, store, sink, done } = await startLimited();
    const events = await store.getEvents(run.runId);
    const scheduled = events.find((e) => e.type === 'retryScheduled');
    expect(scheduled).toMatchObject({ nextAttemptAt: RESET, strategy: 'runtime_reset_time', usageLimit: { reported: REPORTED, resetAt: RESET } });
    expect(events.find((e) => e.type === 'attemptFailed')).toMatchObject({ error: { context: { usageLimit: true, resetAt: RESET, resetReported: REPORTED } } });
    expect(events.filter((e) => e.type === 'attemptStarted')).toHaveLength(1);
    expect((await store.listRuns({ status: 'waiting-limit' })).runs.map((r) => r.id)).toEqual([run.runId]);

    clock.advanceTo(RESET - 1);
    expect(clock.sleepers).toBe(1); // a moment before the reset it still waits
    clock.advanceTo(RESET);
    expect((await done).status).toBe('completed');
    await sink.flush();
    const second = (await store.getEvents(run.runId)).filter((e) => e.type === 'attemptStarted')[1];
    expect(second?.ts).toBe(RESET);
    expect(await store.getRunRow(run.runId)).toMatchObject({ status: 'completed', waitingUntil: null });
  });

  it('a cancel during the wait ends the run at once, without waiting for the reset', async () => {
    const { run, clock, store, sink, done } = await startLimited();
    run.cancel({ commandId: 'cmd-stop', reason: 'operator' });
    expect((await done).status).toBe('cancelled');
    expect(clock.now()).toBe(T0);
    expect(clock.sleepers).toBe(0);
    await sink.flush();
    const types = (await store.getEvents(run.runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'attemptStarted')).toHaveLength(1);
    expect(types.at(-1)).toBe('runCancelled');
    expect(await store.getRunRow(run.runId)).toMatchObject({ status: 'cancelled', waitingUntil: null });
    expect((await store.listRuns({ status: 'waiting-limit' })).runs).toEqual([]);
  });
});
