import { describe, expect, it } from 'vitest';
import type { HivewatchEvent, RunSummary } from '../../core/service/api.js';
import { envelope, JournalBuilder } from '../testing/events.js';
import { applyToLiveRun, backoffsOf, type LiveRun } from './run-summary.js';
import { matchesFilter } from '../runs/runs-query.js';

/** A live row's usage-limit wait follows the events as the store's runs.waiting_until does. */

const RESET = 7_200_000;
const ref = { step: 1, ordinal: 0, taskId: '1:0' };

function limited(usageLimit: boolean): JournalBuilder {
  const j = new JournalBuilder('run_a', 1_000);
  j.start('examples/02-rate-limited-api.prose', 50);
  j.add({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'Fetch' }] });
  j.add({ type: 'taskStarted', ...ref, name: 'Fetch', agent: 'a', maxAttempts: 3 });
  j.add({ type: 'attemptStarted', ...ref, attempt: 1 });
  const error = envelope('RUNTIME_RATE_LIMIT', { message: 'usage limit' });
  j.add({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: 5, error }, 1_005);
  const usage = usageLimit ? { usageLimit: { reported: '5-hour limit reached ∙ resets 3pm', resetAt: RESET } } : {};
  j.add({ type: 'retryScheduled', ...ref, attempt: 1, delayMs: RESET - 1_005, strategy: 'runtime_reset_time', nextAttemptAt: RESET, ...usage });
  return j;
}

function replay(events: readonly HivewatchEvent[], from?: LiveRun): LiveRun | undefined {
  let live = from;
  for (const e of events) live = applyToLiveRun(live, e);
  return live;
}

describe('a live run waiting for a usage-limit reset', () => {
  it('waits from the usage-limit retryScheduled until the next attempt; a plain backoff does not', () => {
    const j = limited(true);
    const waiting = replay(j.events);
    expect(waiting?.summary).toMatchObject({ waitingUntil: RESET, retrying: { nextAttemptAt: RESET } });
    expect(matchesFilter(waiting!.summary, { status: ['waiting-limit'] })).toBe(true);
    j.add({ type: 'attemptStarted', ...ref, attempt: 2 }, RESET);
    const resumed = replay(j.events.slice(-1), waiting);
    expect(resumed?.summary.waitingUntil).toBeNull();
    expect(matchesFilter(resumed!.summary, { status: ['waiting-limit'] })).toBe(false);
    expect(replay(limited(false).events)?.summary.waitingUntil ?? null).toBeNull();
  });

  it('a cancelled run no longer waits; a summary loaded mid-wait keeps its wait across the next event', () => {
    const j = limited(true);
    const waiting = replay(j.events)!;
    j.add({ type: 'runCancelled', cause: { commandId: 'c', reason: 'operator' }, correlation: { run: 'run_a', step: 1, epoch: 1 } });
    expect(replay(j.events.slice(-1), waiting)?.summary.waitingUntil).toBeNull();

    const loaded: RunSummary = { ...waiting.summary };
    const fromSummary: LiveRun = { summary: loaded, backoffs: backoffsOf(loaded) };
    j.add({ type: 'stepStarted', step: 2, frontier: [] });
    expect(replay(j.events.slice(-1), fromSummary)?.summary.waitingUntil).toBe(RESET);
  });
});
