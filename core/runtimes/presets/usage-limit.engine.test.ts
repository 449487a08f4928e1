import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../base/clock.js';
import { ofType, planOf, runPlan } from '../../engine/testing.js';
import { RESET_WAIT_CAP_MS } from '../../base/errors/retry.js';
import { createDurableSink } from '../../store/sink/sink.js';
import { openStore } from '../../store/open.js';
import { ClaudeCodeRuntime } from './claude-code.js';
import { writeCliStandIn } from '../../testing/cli-stand-in.js';
import type { RuntimeRegistry } from '../runtime.js';

/**
 * Through the engine: a claude-code agent (a real subprocess standing in for `claude`) reports a
 * usage limit that resets at 3pm UTC (printed to the minute: the reset lies within 15:00, so the
 * wait lasts to its end); the attempt ended at noon on the virtual clock, so the retry waits
 * three hours and a minute (past the 300 s default max-delay: the reset time has its own cap),
 * and the journal says why.
 */

const dir = mkdtempSync(join(tmpdir(), 'hivewatch-usage-limit-'));
afterAll(async () => rmSync(dir, { recursive: true, force: true }));

const NOON = Date.UTC(2026, 10, 23, 12, 0, 0);
const THREE_PM = Date.UTC(2026, 10, 23, 15, 1, 0);

let scripts = 0;
function standIn(firstResult: string): string {
  return writeCliStandIn(
    dir,
    'claude',
    [
      `const first = ${JSON.stringify(firstResult)};`,
      "const answer = process.env.HIVEWATCH_ATTEMPT === '1'",
      "  ? { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: first, permission_denials: [] }",
      "  : { type: 'result', subtype: 'success', is_error: false, result: 'fixed', permission_denials: [] };",
      'process.stdout.write(JSON.stringify(answer));',
      'process.exitCode = answer.is_error ? 1 : 0;',
    ].join('\n'),
    `attempt-${++scripts}`,
  );
}

async function runWithLimit(firstResult: string, sink?: ReturnType<typeof createDurableSink>) {
  const clock = new VirtualClock(NOON);
  const runtime = new ClaudeCodeRuntime({ now: () => clock.now(), timeZone: 'UTC' });
  const registry: RuntimeRegistry = { forAgent: () => runtime };
  const command = standIn(firstResult);
  const plan = planOf(`agent coder:\n  runtime: "claude-code"\n  command: "${command}"\n\nsession "Fix the bug" (retry: 2)\n  agent: coder\n`);
  return runPlan(plan, { clock, registry, ...(sink === undefined ? {} : { sink }) });
}

describe('usage limit with a reset time, through the engine', () => {
  it('waits until the reset time and journals the reason', async () => {
    const { result, events, clock } = await runWithLimit("You've reached your session limit · resets 3pm (UTC)");
    expect(result.status).toBe('completed');
    const failed = ofType(events, 'attemptFailed');
    expect(failed.map((e) => [e.error.code, e.error.context.resetAt])).toEqual([['RUNTIME_RATE_LIMIT', THREE_PM]]);
    const scheduled = ofType(events, 'retryScheduled');
    expect(scheduled.map((e) => ({ delayMs: e.delayMs, strategy: e.strategy, reason: e.reason, nextAttemptAt: e.nextAttemptAt }))).toEqual([
      {
        delayMs: 3 * 3_600_000 + 60_000,
        strategy: 'runtime_reset_time',
        reason: "waiting for the runtime's reset time 2026-11-23T15:01:00.000Z",
        nextAttemptAt: THREE_PM,
      },
    ]);
    expect(clock.sleeps).toEqual([3 * 3_600_000 + 60_000]);
  });

  it('waits its own cap when the reset is further away, and without a reset time falls back to the policy', async () => {
    const capped = await runWithLimit('Claude AI usage limit reached|1795694400'); // 2026-11-26T12:00:00Z
    expect(ofType(capped.events, 'retryScheduled').map((e) => [e.delayMs, e.reason])).toEqual([
      [RESET_WAIT_CAP_MS, 'runtime reset time 2026-11-26T12:00:00.000Z is beyond the 6h cap: waiting the cap'],
    ]);
    const plain = await runWithLimit('API Error: 429 rate_limit_error');
    const scheduled = ofType(plain.events, 'retryScheduled');
    expect(scheduled.map((e) => [e.delayMs, e.strategy])).toEqual([[30_000, 'rate_limit_exponential']]);
    expect(scheduled[0]).not.toHaveProperty('reason');
  });

  it('the reason reaches the journal (a real database)', async () => {
    const store = await openStore({ path: ':memory:', now: () => NOON });
    try {
      const sink = createDurableSink(store);
      const { result } = await runWithLimit('5-hour limit reached ∙ resets 3pm', sink);
      await sink.close();
      expect(result.status).toBe('completed');
      const journaled = (await store.getEvents(result.runId)).filter((e) => e.type === 'retryScheduled');
      expect(journaled).toMatchObject([
        { delayMs: 3 * 3_600_000 + 60_000, strategy: 'runtime_reset_time', reason: "waiting for the runtime's reset time 2026-11-23T15:01:00.000Z" },
      ]);
    } finally {
      await store.close();
    }
  });
});
