import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import {
  caughtAndCompleted,
  failFast,
  finallyFailed,
  judgedCancelled,
  rethrow,
  retryLimit,
  thrownInCatch,
  type Scenario,
  type Shape,
} from './testing/failure-journals.js';
import { envelope, JournalBuilder } from './testing/journal-builder.js';

/**
 * The failure model in the store (docs/semantics.md F1–F4), part of the store contract's suite:
 * the same tests on SQLite and on a real PostgreSQL cluster. Journals are built in both shapes
 * the store reads: as the engine wrote them before the failure model (`legacy`) and as the
 * contract has them (`chained`: envelope causes, runFailed.chain, attemptCancelled).
 */

const { engines, start, stop } = testEngines('failures');
beforeAll(start, 60_000);
afterAll(stop);

const SHAPES: Shape[] = ['legacy', 'chained'];

type Settled = Record<string, [disposition: string, ending: boolean]>;

describe.each(engines)('the failure model in the store on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const openAt = async (location?: string, options: { now?: () => number; recover?: boolean } = {}): Promise<HivewatchStore> => {
    const store = await openStore({ path: location ?? (await engine.fresh()), ...options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  /** Each named occurrence's disposition and ending flag, as listErrors reads them. */
  async function settled(store: HivewatchStore, scenario: Scenario): Promise<Settled> {
    const rows = (await store.listErrors({ runId: scenario.builder.runId, limit: 1_000 })).errors;
    const bySeq = new Map(rows.map((r) => [r.seq, r]));
    expect(rows.length, 'one row per errorOccurred').toBe(scenario.events.filter((e) => e.type === 'errorOccurred').length);
    return Object.fromEntries(
      Object.entries(scenario.seqs).map(([name, seq]) => [name, [bySeq.get(seq)?.disposition ?? 'missing', bySeq.get(seq)?.ending ?? false]]),
    );
  }

  /** Journals all but the terminal event, checks what is pending, then the terminal event. */
  async function endRun(store: HivewatchStore, scenario: Scenario, pendingBefore: string[]): Promise<void> {
    const events = scenario.events;
    await store.appendEvents(events.slice(0, -1));
    const live = await settled(store, scenario);
    const pending = Object.entries(live)
      .filter(([, [d]]) => d === 'pending')
      .map(([name]) => name);
    expect(pending.sort(), 'pending while the run is live').toEqual([...pendingBefore].sort());
    expect((await store.getRunRow(scenario.builder.runId))?.endingCode).toBeNull();
    await store.appendEvents(events.slice(-1));
  }

  it.each(SHAPES)('retry limit (%s): the last attempt and POLICY_RETRY_LIMIT_EXCEEDED are the chain; retried attempts handled at once', async (shape) => {
    const store = await openAt();
    const run = retryLimit('limit', shape);
    await endRun(store, run, ['timeout3', 'policy']);
    expect(await settled(store, run)).toEqual({
      timeout1: ['handled', false],
      timeout2: ['handled', false],
      timeout3: ['unhandled', false],
      policy: ['unhandled', true],
    });
    const row = (await store.getRunRow('limit'))!;
    expect([row.endingCode, row.endingCategory, row.endingRootCode, row.endingTaskId, row.endingAttempt]).toEqual([
      'POLICY_RETRY_LIMIT_EXCEEDED',
      'policy',
      'RUNTIME_TIMEOUT',
      '1:0',
      3,
    ]);
    expect(row.endingChain?.map((l) => [l.seq, l.code, l.how])).toEqual([
      [run.seqs.policy, 'POLICY_RETRY_LIMIT_EXCEEDED', 'retry-limit'],
      [run.seqs.timeout3, 'RUNTIME_TIMEOUT', null],
    ]);
    expect((await store.replayRun('limit')).diffs).toEqual([]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });

  it.each(SHAPES)('rethrow (%s): a caught error that a bare throw carries on is unhandled and ends the run', async (shape) => {
    const store = await openAt();
    const run = rethrow('rethrow', shape);
    await endRun(store, run, ['crash']);
    expect(await settled(store, run)).toEqual({ crash: ['unhandled', true] });
    const row = (await store.getRunRow('rethrow'))!;
    expect(row.endingChain).toEqual([expect.objectContaining({ seq: run.seqs.crash, code: 'RUNTIME_CRASHED', how: null, rethrown: true })]);
    expect((await store.listErrors({ runId: 'rethrow' })).errors[0]).toMatchObject({ caught: true, disposition: 'unhandled' });
    expect((await store.replayRun('rethrow')).diffs).toEqual([]);
  });

  it.each(SHAPES)('throw "message" in a catch (%s): USER_THROWN then the caught crash', async (shape) => {
    const store = await openAt();
    const run = thrownInCatch('thrown', shape);
    await endRun(store, run, ['crash', 'thrown']);
    expect(await settled(store, run)).toEqual({ crash: ['unhandled', false], thrown: ['unhandled', true] });
    const row = (await store.getRunRow('thrown'))!;
    expect([row.endingCode, row.endingRootCode, row.endingMessage]).toEqual(['USER_THROWN', 'RUNTIME_CRASHED', 'deploy failed']);
    expect(row.endingChain?.map((l) => [l.seq, l.how])).toEqual([
      [run.seqs.thrown, 'thrown-in-catch'],
      [run.seqs.crash, null],
    ]);
  });

  it.each(SHAPES)('fail-fast (%s): the failure that ended the run, not the newest occurrence; siblings are not failures', async (shape) => {
    const store = await openAt();
    const run = failFast('fast', shape);
    await endRun(store, run, shape === 'legacy' ? ['crash', 'stopped'] : ['crash']);
    expect(await settled(store, run)).toEqual({
      timeout1: ['handled', false],
      timeout2: ['handled', false],
      crash: ['unhandled', true],
      ...(shape === 'legacy' ? { stopped: ['handled', false] } : {}),
    });
    const row = (await store.getRunRow('fast'))!;
    expect([row.endingCode, row.endingTaskId, row.endingRootCode]).toEqual(['RUNTIME_CRASHED', '1:1', 'RUNTIME_CRASHED']);
    // The newest occurrence stays what it was: in the old journal it is A's retried timeout.
    expect(row.lastErrorCode).toBe(shape === 'legacy' ? 'RUNTIME_TIMEOUT' : 'RUNTIME_CRASHED');
    expect((await store.failureCounts({ by: 'code' })).rows).toEqual([{ key: 'RUNTIME_CRASHED', count: 1, label: null, rootCode: 'RUNTIME_CRASHED' }]);
    expect((await store.replayRun('fast')).diffs).toEqual([]);
  });

  it('a cancelled-by-sibling attempt keeps what it reported; a stale receipt keeps what it carried', async () => {
    const store = await openAt();
    await store.appendEvents(failFast('fast', 'chained').events);
    const c = (await store.getRun('fast'))!.attempts.find((a) => a.taskId === '1:2')!;
    expect(c).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'sibling',
      error: null,
      lateResult: { outcome: 'failed', error: { code: 'RUNTIME_CRASHED' } },
    });
    const cancelled = new JournalBuilder('stale').start().cancelDuringStep([{ attempts: ['ok'] }]);
    cancelled.push({
      type: 'receiptIgnoredStale',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempt: 1,
      epoch: 0,
      currentEpoch: 1,
      outcome: 'succeeded',
      output: 'done late',
    });
    await store.appendEvents(cancelled.events);
    const detail = (await store.getRun('stale'))!;
    expect(detail.attempts[0]).toMatchObject({ status: 'cancelled', cancelledBy: null, lateResult: { outcome: 'succeeded', output: 'done late' } });
    expect(detail.tasks[0]?.staleReceipts).toBe(1);
    expect((await store.replayRun('stale')).diffs).toEqual([]);
  });

  it('a failure journaled as it happened, then judged cancelled by a lower sibling: no failure of its own; its end and usage stay', async () => {
    const store = await openAt();
    const run = judgedCancelled('judged');
    await endRun(store, run, ['crash']);
    expect(await settled(store, run)).toEqual({ crash: ['unhandled', true] });
    const b = (await store.getRun('judged'))!.attempts.find((a) => a.taskId === '1:1')!;
    const fact = run.events.find((e) => e.type === 'attemptFailed' && e.taskId === '1:1')!;
    // It reads as an attempt a sibling cancelled, with its failure reported; its end is the fact's, not the verdict's.
    expect(b).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'sibling',
      error: null,
      errorCode: null,
      lateResult: { outcome: 'failed', error: { message: 'B exited with code 12' } },
    });
    expect([b.endedAt, b.durationMs]).toEqual([fact.ts, 10]);
    const row = (await store.getRunRow('judged'))!;
    expect([row.endingCode, row.endingTaskId, row.errorCount]).toEqual(['RUNTIME_CRASHED', '1:0', 1]);
    expect((await store.failureCounts({ by: 'code' })).rows).toEqual([{ key: 'RUNTIME_CRASHED', count: 1, label: null, rootCode: 'RUNTIME_CRASHED' }]);
    expect((await store.replayRun('judged')).diffs).toEqual([]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });

  it('a failing finally (chained): the new error ends the run, the pending one is its cause', async () => {
    const store = await openAt();
    const run = finallyFailed('finally');
    await endRun(store, run, ['crash', 'timeout']);
    expect(await settled(store, run)).toEqual({ crash: ['unhandled', false], timeout: ['unhandled', true] });
    const row = (await store.getRunRow('finally'))!;
    expect([row.endingCode, row.endingRootCode, row.endingChain?.[0]?.how]).toEqual(['RUNTIME_TIMEOUT', 'RUNTIME_CRASHED', 'finally-failed']);
  });

  it('a completed, a cancelled and an interrupted run: every occurrence handled, no failure', async () => {
    const location = await engine.fresh();
    const gone = await openAt(location);
    const completed = caughtAndCompleted('completed');
    const cancelled = new JournalBuilder('cancelled').start().cancelDuringStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT' }] }, { attempts: ['ok'] }]);
    // A host that dies while a caught crash waits for the run's end.
    const left = new JournalBuilder('left').start();
    const ref = { step: 1, ordinal: 0, taskId: '1:0' };
    const crash = envelope({ code: 'RUNTIME_CRASHED' }, { project: null, flow: null, run: 'left', step: 1, task: '1:0', attempt: 1 }, left.ts);
    left.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'guarded' }] });
    left.push({ type: 'taskStarted', ...ref, name: 'guarded', agent: 'fake', maxAttempts: 1 });
    left.push({ type: 'attemptStarted', ...ref, attempt: 1 });
    left.push({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: 5, error: crash });
    left.push({ type: 'errorOccurred', error: crash, caught: true, retrying: false, ...ref });
    left.push({ type: 'stepStarted', step: 2, frontier: [{ ordinal: 0, taskId: '2:0', name: 'handler' }] });
    await gone.appendEvents([...completed.events, ...cancelled.events, ...left.events]);
    expect((await gone.listErrors({ runId: 'left' })).errors.map((e) => e.disposition)).toEqual(['pending']);
    await gone.close();
    const next = await openAt(location);
    expect(next.recovered.map((r) => r.runId)).toEqual(['left']);

    const dispositions = async (runId: string): Promise<string[]> =>
      (await next.listErrors({ runId })).errors.map((e) => `${e.code}:${e.disposition}:${e.ending}`);
    expect(await dispositions('completed')).toEqual(['RUNTIME_CRASHED:handled:false']);
    expect(await dispositions('cancelled')).toEqual(['RUNTIME_RATE_LIMIT:handled:false']);
    expect(await dispositions('left')).toEqual(['SYSTEM_RUN_INTERRUPTED:handled:false', 'RUNTIME_CRASHED:handled:false']);
    expect((await next.getRunRow('completed'))?.endingCode).toBeNull();
    const stopped = (await next.getRunRow('cancelled'))!;
    expect([stopped.endingCode, stopped.endingMessage, stopped.endingChain?.[0]?.seq]).toEqual(['SYSTEM_CANCELLED', 'operator', null]);
    const interrupted = (await next.getRunRow('left'))!;
    const seq = (await next.listErrors({ runId: 'left', code: 'SYSTEM_RUN_INTERRUPTED' })).errors[0]!.seq;
    expect([interrupted.status, interrupted.endingCode, interrupted.endingChain?.[0]?.seq]).toEqual(['interrupted', 'SYSTEM_RUN_INTERRUPTED', seq]);
    expect(await next.failureCounts({ by: 'code' })).toEqual({ total: 0, rows: [] });
    expect(Object.fromEntries((await next.errorCounts({ by: 'handled' })).map((c) => [c.key, c.count]))).toEqual({ handled: 4 });
    for (const id of ['completed', 'cancelled', 'left']) expect((await next.replayRun(id)).diffs, id).toEqual([]);
    expect((await next.verifyAggregates()).diffs).toEqual([]);
  });

  it('counts failures and occurrences apart: N failures, M occurrences (handled, unhandled, pending)', async () => {
    const store = await openAt();
    for (const i of [1, 2, 3]) await store.appendEvents(rethrow(`rethrow-${i}`, 'legacy', { flow: 'flows/deploy.prose', flowName: 'deploy' }).events);
    for (const i of [1, 2]) await store.appendEvents(retryLimit(`limit-${i}`, 'chained').events);
    await store.appendEvents(caughtAndCompleted('fine').events);
    // A live run: its caught crash waits for the run's end.
    await store.appendEvents(caughtAndCompleted('live').events.slice(0, -1));
    const byHandled = Object.fromEntries((await store.errorCounts({ by: 'handled' })).map((c) => [c.key, c.count]));
    // 3 rethrown crashes + 2 × (last timeout + POLICY) unhandled; 2 × 2 retried timeouts + 1 caught handled; 1 pending.
    expect(byHandled).toEqual({ unhandled: 7, handled: 5, pending: 1 });
    expect((await store.errorGroups()).reduce((n, g) => n + g.unhandled, 0)).toBe(7);
    expect((await store.errorGroups({ disposition: 'pending' })).map((g) => [g.code, g.count])).toEqual([['RUNTIME_CRASHED', 1]]);
    const failures = await store.failureCounts({ by: 'code' });
    expect(failures).toEqual({
      total: 5,
      rows: [
        { key: 'RUNTIME_CRASHED', count: 3, label: null, rootCode: 'RUNTIME_CRASHED' },
        { key: 'POLICY_RETRY_LIMIT_EXCEEDED', count: 2, label: null, rootCode: 'RUNTIME_TIMEOUT' },
      ],
    });
    expect((await store.failureCounts({ by: 'rootCode' })).rows.map((r) => [r.key, r.count])).toEqual([
      ['RUNTIME_CRASHED', 3],
      ['RUNTIME_TIMEOUT', 2],
    ]);
    expect((await store.failureCounts({ by: 'category' })).rows.map((r) => [r.key, r.count])).toEqual([
      ['runtime', 3],
      ['policy', 2],
    ]);
    expect((await store.failureCounts({ by: 'flow' })).rows.map((r) => [r.key, r.label, r.count])).toEqual([
      ['flows/deploy.prose', 'deploy', 3],
      ['flows/failing.prose', 'failing', 2],
    ]);
    expect((await store.failureCounts({ by: 'code', code: 'RUNTIME_TIMEOUT' })).total).toBe(2);
    expect((await store.failureCounts({ by: 'origin', runId: 'limit-1' })).rows).toEqual([{ key: 'policy', count: 1, label: null }]);
    expect((await store.failureCounts({ by: 'code', limit: 1 })).total).toBe(5);
    await expect(store.failureCounts({ by: 'task' as never })).rejects.toThrow('unknown dimension "task"; use code, rootCode, category, origin, flow');
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });

  it('settles a run its writer no longer holds: reopened, and its pending occurrences in an earlier batch', async () => {
    const location = await engine.fresh();
    const run = retryLimit('cold', 'chained');
    const first = await openAt(location, { recover: false });
    await first.appendEvents(run.events.slice(0, -3));
    await first.close();
    const second = await openAt(location, { recover: false });
    for (const event of run.events.slice(-3)) await second.appendEvents([event]);
    expect(await settled(second, run)).toMatchObject({ timeout3: ['unhandled', false], policy: ['unhandled', true] });
    expect((await second.replayRun('cold')).diffs).toEqual([]);
    expect((await second.verifyAggregates()).diffs).toEqual([]);
  });

  it('a run a faulty journal ends twice counts as what it ended last: failures still equal the failed runs', async () => {
    const store = await openAt();
    const twice = rethrow('twice', 'chained');
    twice.builder.push({
      type: 'runCancelled',
      cause: { commandId: 'late', reason: 'after the failure' },
      correlation: { run: 'twice', step: null, epoch: 1 },
    });
    const again = retryLimit('again', 'chained');
    const failed = again.events.at(-1) as Extract<HivewatchEvent, { type: 'runFailed' }>;
    again.builder.push({ type: 'runFailed', error: failed.error });
    await store.appendEvents(twice.events);
    await store.appendEvents(again.events);
    expect((await store.getRunRow('twice'))?.endingCode).toBe('SYSTEM_CANCELLED');
    expect(await store.failureCounts({ by: 'code' })).toMatchObject({ total: 1, rows: [{ key: 'POLICY_RETRY_LIMIT_EXCEEDED', count: 1 }] });
    expect((await store.verifyAggregates()).diffs).toEqual([]);
    for (const id of ['twice', 'again']) expect((await store.replayRun(id)).diffs, id).toEqual([]);
  });

  it('prune takes a failed run out of the failure counts too', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const store = await openAt(undefined, { now: () => t0 + 40 * 86_400_000 });
    await store.appendEvents(retryLimit('old', 'chained', { start: t0 }).events);
    await store.appendEvents(rethrow('recent', 'chained', { start: t0 + 39 * 86_400_000 }).events);
    expect((await store.failureCounts({ by: 'code' })).total).toBe(2);
    expect(await store.prune({ olderThanMs: 30 * 86_400_000 })).toMatchObject({ runs: 1 });
    expect((await store.failureCounts({ by: 'code' })).rows.map((r) => [r.key, r.count])).toEqual([['RUNTIME_CRASHED', 1]]);
    expect((await store.errorCounts({ by: 'handled' })).map((c) => [c.key, c.count])).toEqual([['unhandled', 1]]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });
});
