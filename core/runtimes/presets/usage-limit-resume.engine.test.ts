import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { planOf, startRun } from '../../engine/testing.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openStore } from '../../store/open.js';
import { createDurableSink, type DurableSink } from '../../store/sink/sink.js';
import { writeCliStandIn } from '../../testing/cli-stand-in.js';
import { HandClock } from '../../testing/hand-clock.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { CodexCliRuntime } from './codex-cli.js';

/**
 * A usage-limit wait resumes right after the real reset, and each resume reads the reset afresh
 * (docs/presets.md "Usage limits"). A codex-cli agent (a real subprocess standing in for `codex
 * exec --json`) hits its limit at 22:00 and prints "try again at 10:28 PM" — Codex's words,
 * to the minute, for a reset somewhere in 22:28. The run waits to the end of that minute (22:29),
 * not its start; the resume meets the same words (the provider's clock a little behind) and
 * reads them as today's reset just passing, not tomorrow's 22:28 (which waited the 6 h cap); the
 * next resume is told 11:40 PM — the reset moved later, as Codex's 5-hour window does while it is
 * used — and the run says so; the attempt after that succeeds. The engine's clock moves only when
 * the test moves it.
 */

const T0 = Date.UTC(2026, 10, 26, 22, 0, 0);
const FIRST_RESET = Date.UTC(2026, 10, 26, 22, 29, 0);
const MOVED_RESET = Date.UTC(2026, 10, 26, 23, 41, 0);
const LIMIT = (at: string): string =>
  `You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at ${at}.`;

const tempDir = tempDirs();

/** `codex exec --json` that fails with the limit on attempts 1–3 (the third with a later reset) and answers on the fourth. */
function standIn(dir: string): string {
  return writeCliStandIn(
    dir,
    'codex',
    [
      `const said = { '1': ${JSON.stringify(LIMIT('10:28 PM'))}, '2': ${JSON.stringify(LIMIT('10:28 PM'))}, '3': ${JSON.stringify(LIMIT('11:40 PM'))} }[process.env.HIVEWATCH_ATTEMPT];`,
      "const line = (event) => process.stdout.write(JSON.stringify(event) + '\\n');",
      "line({ type: 'thread.started', thread_id: 'thread-' + process.env.HIVEWATCH_ATTEMPT });",
      "line({ type: 'turn.started' });",
      'if (said) {',
      "  line({ type: 'error', message: said });",
      "  line({ type: 'turn.failed', error: { message: said } });",
      '  process.exitCode = 1;',
      '} else {',
      "  line({ type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'done' } });",
      "  line({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 2 } });",
      '}',
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

describe('a usage-limit wait resumes right after the real reset and re-reads it at each resume', () => {
  it('waits to the end of the printed minute, reads a reset passing as today, and says when the reset moved', async () => {
    const dir = tempDir('hivewatch-limit-resume-');
    const clock = new HandClock(T0);
    const store = await openStore({ path: ':memory:', now: () => clock.now() });
    const sink = createDurableSink(store);
    open.push({ store, sink });
    const runtime = new CodexCliRuntime({ now: () => clock.now(), timeZone: 'UTC' });
    const env = JSON.stringify(`CODEX_HOME=${dir}`);
    const plan = planOf(
      `agent coder:\n  runtime: "codex-cli"\n  command: "${standIn(dir)}"\n  env: [${env}]\n\nsession "Fix the bug" (retry: 3)\n  agent: coder\n`,
    );
    const { run, done } = startRun(plan, { clock, registry: { forAgent: () => runtime }, sink });
    const scheduled = async (n: number): Promise<Extract<HivewatchEvent, { type: 'retryScheduled' }>> => {
      let found: HivewatchEvent | undefined;
      await vi.waitFor(
        async () => {
          expect(clock.sleepers).toBe(1);
          await sink.flush();
          found = (await store.getEvents(run.runId)).filter((e) => e.type === 'retryScheduled')[n - 1];
          expect(found).toBeDefined();
        },
        { timeout: 15_000 },
      );
      return found as Extract<HivewatchEvent, { type: 'retryScheduled' }>;
    };

    const first = await scheduled(1);
    expect(first).toMatchObject({ nextAttemptAt: FIRST_RESET, strategy: 'runtime_reset_time', usageLimit: { resetAt: FIRST_RESET } });
    expect(first.usageLimit).not.toHaveProperty('movedFrom');
    expect((await store.getRunRow(run.runId))?.waitingUntil).toBe(FIRST_RESET);
    clock.advanceTo(FIRST_RESET);

    // The same words again at 22:29:00: the reset is passing now, not tomorrow at 22:28.
    const second = await scheduled(2);
    expect(second).toMatchObject({ ts: FIRST_RESET, delayMs: 0, nextAttemptAt: FIRST_RESET, usageLimit: { resetAt: FIRST_RESET } });
    expect(second.usageLimit).not.toHaveProperty('movedFrom');
    clock.advanceTo(FIRST_RESET);

    // The next resume is told 11:40 PM: the reset moved 1 h 12 min later, and the run says so.
    const third = await scheduled(3);
    expect(third).toMatchObject({ nextAttemptAt: MOVED_RESET, usageLimit: { resetAt: MOVED_RESET, movedFrom: FIRST_RESET } });
    expect(third.reason).toContain("the usage limit's reset moved from 2026-11-26T22:29:00.000Z to 2026-11-26T23:41:00.000Z (1 h 12 min later)");
    clock.advanceTo(MOVED_RESET - 1);
    expect(clock.sleepers).toBe(1);
    clock.advanceTo(MOVED_RESET);

    expect((await done).status).toBe('completed');
    await sink.flush();
    const starts = (await store.getEvents(run.runId)).filter((e) => e.type === 'attemptStarted').map((e) => e.ts);
    expect(starts).toEqual([T0, FIRST_RESET, FIRST_RESET, MOVED_RESET]);
  });
});
