import { describe, expect, it } from 'vitest';
import type { FailureLink, HivewatchEvent } from '../base/events.js';
import { envelope, JournalBuilder } from '../store/testing/journal-builder.js';
import { failFast, rethrow, retryLimit, thrownInCatch, type Scenario } from '../store/testing/failure-journals.js';
import { endingChainAt, endingOfChain, nextPending, type PendingOccurrence, type RunEnding } from './ending-chain.js';

/** A journal folded the way both the store and the window fold it: pending occurrences, then the ending. */
function fold(events: readonly HivewatchEvent[]): { pending: readonly PendingOccurrence[]; ending: RunEnding | null } {
  let pending: readonly PendingOccurrence[] = [];
  let ending: RunEnding | null = null;
  let ended = false;
  for (const event of events) {
    const chain = endingChainAt(event, pending);
    if (chain !== undefined) ending = endingOfChain(chain);
    pending = nextPending(pending, event, ended);
    if (event.type === 'runFailed' || event.type === 'runCompleted' || event.type === 'externalRunIdle') ended = true;
    if (event.type === 'externalRunReopened') ended = false;
  }
  return { pending, ending };
}

const chainOf = (scenario: Scenario): FailureLink[] => {
  const failed = scenario.events.find((e) => e.type === 'runFailed');
  if (failed?.type !== 'runFailed' || failed.chain === undefined) throw new Error('the chained scenario journals its chain');
  return failed.chain;
};

describe('the ending chain, decided once for the store and the window', () => {
  it.each([
    ['retry limit', retryLimit],
    ['rethrow', rethrow],
    ['throw in a catch', thrownInCatch],
    ['fail fast', failFast],
  ])('derives for a journal written before the failure model (%s) the chain the engine now journals', (_name, scenario) => {
    const chained = scenario('chained-run', 'chained');
    const legacy = scenario('legacy-run', 'legacy');
    const expected = chainOf(chained).map((link) => ({
      ...link,
      seq: link.seq === null ? null : legacy.seqs[Object.entries(chained.seqs).find(([, seq]) => seq === link.seq)?.[0] ?? ''],
    }));
    expect(fold(legacy.events).ending?.chain).toEqual(expected);
    expect(fold(chained.events).ending).toMatchObject({ chain: chainOf(chained), code: chainOf(chained)[0]?.code, rootCode: chainOf(chained).at(-1)?.code });
  });

  it('ends a quiet external session whose last prompt failed with its error, matched to its occurrence', () => {
    const b = new JournalBuilder('session', { flow: 'external:claude-code', flowName: 'claude-code' }).start();
    const error = envelope(
      { code: 'RUNTIME_CRASHED', message: 'the API refused the prompt' },
      { project: null, flow: 'external:claude-code', run: 'session', step: 1, task: 't', attempt: 1 },
      b.ts,
    );
    const occurred = b.push({ type: 'errorOccurred', error, caught: false, retrying: false, step: 1, ordinal: 0, taskId: 't' });
    b.push({ type: 'externalRunIdle', quietMs: 60_000, lastEventAt: b.ts, error });
    const { pending, ending } = fold(b.events);
    expect(pending).toEqual([]);
    expect(ending).toMatchObject({ code: 'RUNTIME_CRASHED', rootCode: 'RUNTIME_CRASHED', taskId: 't', attempt: 1, chain: [{ seq: occurred.seq, how: null }] });
  });

  it('leaves the ending of a quiet session without an error and of a completed run alone, and clears it on reopening', () => {
    const idle = { runId: 'r', seq: 9, ts: 9, type: 'externalRunIdle', quietMs: 1, lastEventAt: 8 } as HivewatchEvent;
    expect(endingChainAt(idle, [])).toBeUndefined();
    expect(endingChainAt({ runId: 'r', seq: 9, ts: 9, type: 'runCompleted', steps: 1 } as HivewatchEvent, [])).toBeUndefined();
    expect(endingChainAt({ runId: 'r', seq: 10, ts: 10, type: 'externalRunReopened', idleSince: 9 }, [])).toBeNull();
    expect(endingOfChain(null)).toBeNull();
    expect(endingOfChain([])).toBeNull();
  });

  it("keeps pending only an error that may still become a link, and reads an old envelope's missing correlation as empty", () => {
    const error = { ...envelope({ code: 'RUNTIME_TIMEOUT', message: 'slow' }, { project: null, flow: null, run: 'r', step: 1, task: 't', attempt: 2 }, 1) };
    const base = { runId: 'r', ts: 1, type: 'errorOccurred' as const, error, caught: false, step: 1, ordinal: 0, taskId: 't' };
    expect(nextPending([], { ...base, seq: 1, retrying: true }, false)).toEqual([]);
    expect(nextPending([], { ...base, seq: 2, retrying: false }, true)).toEqual([]);
    expect(nextPending([], { ...base, seq: 3, retrying: false }, false)).toEqual([
      { seq: 3, code: 'RUNTIME_TIMEOUT', message: 'slow', taskId: 't', attempt: 2, caught: false },
    ]);
    const old = { ...base, seq: 4, retrying: false, taskId: null, error: { ...error, correlation: undefined } } as unknown as HivewatchEvent;
    expect(nextPending([], old, false)).toEqual([{ seq: 4, code: 'RUNTIME_TIMEOUT', message: 'slow', taskId: null, attempt: null, caught: false }]);
  });
});
