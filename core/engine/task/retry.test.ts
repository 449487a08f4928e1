import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../base/clock.js';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, startRun, typesOf } from '../testing.js';

const delaysOf = (events: Parameters<typeof ofType>[0]): number[] => ofType(events, 'retryScheduled').map((e) => e.delayMs);

describe('retries (rules 2–4)', () => {
  it('invalid retry policies are reported before step 0, naming the smallest ordinal', async () => {
    const plan = planOf(
      `
session "fine"
session "bad backoff" (retry: 2, backoff: "sometimes")
session "bad count" (retry: -1)
`,
      { allowInvalid: true },
    );
    const { result, events } = await runPlan(plan);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('USER_INVALID_FLOW');
    expect(result.error?.message).toBe(
      'test.prose:3:1: session #1: backoff must be one of none, fixed, linear, exponential or a list of delays, got "sometimes"',
    );
    expect(typesOf(events)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
  });

  const cases: [string, string, number[]][] = [
    ['exponential', `(retry: 4, backoff: "exponential", delay: "1s", max-delay: "5s")`, [1000, 2000, 4000, 5000]],
    ['linear', `(retry: 3, backoff: "linear", delay: "2s")`, [2000, 4000, 6000]],
    ['fixed', `(retry: 3, backoff: "fixed", delay: "7s")`, [7000, 7000, 7000]],
    ['explicit list', `(retry: 4, backoff: [1s, 5s, 30s])`, [1000, 5000, 30000, 30000]],
    ['none', `(retry: 2, backoff: "none")`, [0, 0]],
  ];
  for (const [label, props, expected] of cases) {
    it(`backoff schedule is exact and jitter-free on the virtual clock: ${label}`, async () => {
      const plan = planOf(`session "flaky" ${props}\n  simulate: "crash"\n`);
      const clock = new VirtualClock(0);
      const { events } = await runPlan(plan, { clock });
      expect(delaysOf(events)).toEqual(expected);
      expect(clock.sleeps).toEqual(expected);
      expect(ofType(events, 'attemptStarted')).toHaveLength(expected.length + 1);
    });
  }

  it('error-driven defaults: rate limit 30, 60, 120, 240, 300, 300 s', async () => {
    const plan = planOf(`session "api" (retry: 6)\n  simulate: "rate_limit"\n`);
    const { events, result } = await runPlan(plan);
    expect(delaysOf(events)).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    expect(ofType(events, 'retryScheduled').every((e) => e.strategy === 'rate_limit_exponential')).toBe(true);
    expect(result.error?.code).toBe('POLICY_RETRY_LIMIT_EXCEEDED');
  });

  it('error-driven defaults: transient 5, 10, 15 s, then success', async () => {
    const plan = planOf(`session "tests" (retry: 3)\n  simulate: "crash, timeout, exit:1, ok"\n`);
    const { events, result } = await runPlan(plan);
    expect(delaysOf(events)).toEqual([5_000, 10_000, 15_000]);
    expect(result.status).toBe('completed');
  });

  it('error-driven defaults: a fatal error is not retried', async () => {
    const runtime = new ScriptedRuntime({ deploy: () => runtimeError('RUNTIME_CONNECTION_FAILED', 'no such command') });
    const plan = planOf(`session "deploy" (retry: 5)\n`);
    const { events, result } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(delaysOf(events)).toEqual([]);
    expect(runtime.calls).toHaveLength(1);
    expect(result.error?.code).toBe('RUNTIME_CONNECTION_FAILED');
  });

  it('the delay is journaled before the sleep starts', async () => {
    const plan = planOf(`session "api" (retry: 2)\n  simulate: "rate_limit, ok"\n`);
    const seenAtSleep: string[][] = [];
    const clock = new VirtualClock(0);
    const { done, sink } = startRun(plan, { clock });
    const sleep = clock.sleep.bind(clock);
    clock.sleep = (ms, signal) => {
      seenAtSleep.push(sink.events.map((e) => e.type));
      return sleep(ms, signal);
    };
    await done;
    expect(seenAtSleep).toHaveLength(1);
    expect(seenAtSleep[0]?.at(-1)).toBe('retryScheduled');
  });

  it("a failed attempt's outputs are discarded: only the successful attempt is written", async () => {
    let attempt = 0;
    const runtime = new ScriptedRuntime({
      produce: () => {
        attempt++;
        return attempt === 1 ? runtimeError('RUNTIME_CRASHED', 'half-written output') : { kind: 'succeeded', output: 'second attempt' };
      },
    });
    const plan = planOf(`let result = session "produce" (retry: 1)\n`);
    const { events, result } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(ofType(events, 'writeApplied').map((w) => w.value)).toEqual(['second attempt']);
    expect(result.channels).toEqual({ result: 'second attempt' });
    expect(ofType(events, 'attemptFailed')).toHaveLength(1);
  });

  it('exhausted retries fail with POLICY_RETRY_LIMIT_EXCEEDED carrying the last error', async () => {
    const plan = planOf(`session "api" (retry: 2, backoff: "fixed", delay: "1s")\n  simulate: "timeout"\n`);
    const { result, events } = await runPlan(plan);
    expect(result.error?.code).toBe('POLICY_RETRY_LIMIT_EXCEEDED');
    expect(result.error?.origin).toBe('policy');
    // The last attempt's error is the cause (rule 16), no longer a context field.
    expect(result.error?.cause).toMatchObject({ code: 'RUNTIME_TIMEOUT', correlation: { task: '1:0', attempt: 3 } });
    expect(result.error?.context.lastError).toBeUndefined();
    expect(ofType(events, 'errorOccurred').map((e) => [e.error.code, e.retrying])).toEqual([
      ['RUNTIME_TIMEOUT', true],
      ['RUNTIME_TIMEOUT', true],
      ['RUNTIME_TIMEOUT', false],
      ['POLICY_RETRY_LIMIT_EXCEEDED', false],
    ]);
    const [, , last, limit] = ofType(events, 'errorOccurred');
    expect(limit?.error.cause).toMatchObject({ code: 'RUNTIME_TIMEOUT', correlation: { attempt: 3 } });
    expect(ofType(events, 'runFailed')[0]?.chain).toEqual([
      expect.objectContaining({ seq: limit?.seq, code: 'POLICY_RETRY_LIMIT_EXCEEDED', taskId: '1:0', attempt: 3, how: 'retry-limit' }),
      expect.objectContaining({ seq: last?.seq, code: 'RUNTIME_TIMEOUT', taskId: '1:0', attempt: 3, how: null }),
    ]);
  });

  it('skipBackoff ends a backoff early and journals the command', async () => {
    const plan = planOf(`session "api" (retry: 1, backoff: "fixed", delay: "1h")\n  simulate: "crash, ok"\n`);
    const clock = new VirtualClock(0);
    // A clock whose sleeps never end on their own: only the skip can end this one.
    clock.sleep = (_ms, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const { run, done, sink } = startRun(plan, { clock });
    run.onEvent((e) => {
      if (e.type === 'retryScheduled') queueMicrotask(() => expect(run.skipBackoff(e.taskId, 'cmd_now')).toBe(true));
    });
    const result = await done;
    expect(result.status).toBe('completed');
    expect(ofType(sink.events, 'backoffSkipped').map((e) => e.commandId)).toEqual(['cmd_now']);
  });
});
