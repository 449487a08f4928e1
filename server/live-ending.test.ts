import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndingError, HivewatchEvent, RunSummary } from '../core/service/api.js';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { endingErrorOf, openStore, type HivewatchStore } from '../core/store/index.js';
import { failFast, finallyFailed, rethrow, retryLimit, thrownInCatch } from '../core/store/testing/failure-journals.js';
import { applyToLiveRun, type LiveRun } from '../renderer/live/run-summary.js';

/**
 * The window's live row (renderer/live/run-summary.ts) says why a run ended exactly as the store
 * does (rule 16): for journals the engine wrote here (fake-runtime subprocesses on the
 * virtual clock), the ending error the renderer reduces from the events equals the one the store
 * projected; also for those journals with `runFailed.chain` taken out (the shape before the
 * failure model: the chain is derived from the envelope's causes and matched to occurrences),
 * and for a run the store's start-up recovery ended `interrupted`.
 */

const FAKE = 'agent a:\n  runtime: "fake"\n\n';

const FLOWS: Record<string, string> = {
  // Deploy (ordinal 0) crashes while Smoke tests retries timeouts; the cancelled branch's finally
  // times out once after the crash: the newest error is not the one that ended the run.
  'fail-fast.prose': `${FAKE}parallel:
  session: a
    prompt: "Deploy"
    simulate: "exit:2"
  try:
    session: a (retry: 9, delay: "5s")
      prompt: "Smoke tests"
      simulate: "timeout"
  finally:
    session: a (retry: 2, delay: "2s")
      prompt: "Collect smoke logs"
      simulate: "timeout, ok"
`,
  'rethrow.prose': `${FAKE}try:
  session: a
    prompt: "Deploy to staging"
    simulate: "crash"
catch err:
  session: a
    prompt: "Record {err.code}"
  throw
finally:
  session: a (retry: 2, delay: "2s")
    prompt: "Remove the temporary files"
    simulate: "timeout, ok"
`,
  'exhausted.prose': `${FAKE}session: a (retry: 3, delay: "10s")
  prompt: "Deploy"
  simulate: "exit:2"
`,
  'thrown.prose': `${FAKE}try:
  session: a
    prompt: "Deploy"
    simulate: "exit:3"
catch err:
  throw "deploy failed: {err.code}"
`,
  'finally.prose': `${FAKE}try:
  session: a
    prompt: "Migrate"
    simulate: "timeout"
finally:
  session: a
    prompt: "Unlock"
    simulate: "crash"
`,
  'cleanup.prose': `${FAKE}parallel:
  session: a
    prompt: "Fail fast"
    simulate: "exit:4"
  try:
    session: a
      prompt: "Long task"
      simulate: "slow:60s"
  finally:
    session: a
      prompt: "Clean up"
      simulate: "malformed"
`,
  'steps.prose': `${FAKE}repeat 4 as i:
  session: a
    prompt: "Step {i}"
`,
  'slow.prose': `${FAKE}session: a (retry: 1, delay: "1s")
  prompt: "Wait"
  simulate: "timeout, slow:60s"
`,
};

let dir: string;
let store: HivewatchStore;
let service: HivewatchService;
/** Every run's journal, by the scenario that made it. */
const journals = new Map<string, HivewatchEvent[]>();

/** The summary the window reduces from a journal, event by event, as the live stream delivers it. */
function liveSummary(events: readonly HivewatchEvent[]): RunSummary {
  let live: LiveRun | undefined;
  for (const event of events) live = applyToLiveRun(live, event);
  if (!live) throw new Error('the journal has no runStarted');
  return live.summary;
}

async function finishedRun(flow: string, options: { maxSteps?: number } = {}): Promise<string> {
  const { runId } = await service.startRun({ flow, ...options });
  await service.whenFinished(runId);
  return runId;
}

/** Resolves with the first live event that matches (the subscription starts before the run). */
function nextEvent(match: (event: HivewatchEvent) => boolean): Promise<HivewatchEvent> {
  return new Promise((resolve) => {
    const off = service.subscribe((batch) => {
      const hit = batch.find((live) => match(live.event));
      if (!hit) return;
      off();
      resolve(hit.event);
    });
  });
}

async function cancelledRun(): Promise<string> {
  const started = nextEvent((e) => e.type === 'attemptStarted' && e.attempt === 2);
  const { runId } = await service.startRun({ flow: 'user/slow.prose' });
  await started;
  await service.cancelRun({ runId, reason: 'stopped from the window' });
  await service.whenFinished(runId);
  return runId;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-live-ending-'));
  const userFlowsDir = join(dir, 'flows');
  mkdirSync(userFlowsDir);
  for (const [name, source] of Object.entries(FLOWS)) writeFileSync(join(userFlowsDir, name), source);
  store = await openStore({ path: join(dir, 'hivewatch.db') });
  service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir, clock: 'virtual' });
  const runs: [string, () => Promise<string>][] = [
    ['fail-fast', () => finishedRun('user/fail-fast.prose')],
    ['rethrow', () => finishedRun('user/rethrow.prose')],
    ['retry limit', () => finishedRun('user/exhausted.prose')],
    ['throw in a catch', () => finishedRun('user/thrown.prose')],
    ['failing finally', () => finishedRun('user/finally.prose')],
    ['failing cleanup of a cancelled branch', () => finishedRun('user/cleanup.prose')],
    ['max steps', () => finishedRun('user/steps.prose', { maxSteps: 2 })],
    ['completed after retries', () => finishedRun('examples/02-rate-limited-api.prose')],
    ['cancelled', cancelledRun],
  ];
  for (const [name, make] of runs) {
    const runId = await make();
    journals.set(name, await store.getEvents(runId, 0, 100_000));
  }
}, 120_000);

afterAll(async () => {
  await service?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the store holds for a run (the API's RunSummary fields the comparison reads). */
async function stored(target: HivewatchStore, runId: string): Promise<{ status: string; endingError: EndingError | null }> {
  const row = await target.getRunRow(runId);
  if (!row) throw new Error(`no run ${runId}`);
  return { status: row.status, endingError: endingErrorOf(row) };
}

describe('the live row’s ending error equals the store’s (rule 16)', () => {
  it('on every way a run ends, as the engine journaled it', async () => {
    const statuses: Record<string, string> = {};
    for (const [name, events] of journals) {
      const runId = events[0]?.runId as string;
      const live = liveSummary(events);
      const want = await stored(store, runId);
      expect({ status: live.status, endingError: live.endingError }, name).toEqual(want);
      statuses[name] = `${live.status} ${live.endingError?.code ?? '-'} ${live.endingError?.rootCode ?? '-'} ${live.endingError?.chain.length ?? 0}`;
    }
    // What the scenarios are: each way of ending, so the comparison above covers them all.
    expect(statuses).toEqual({
      'fail-fast': 'failed RUNTIME_CRASHED RUNTIME_CRASHED 1',
      rethrow: 'failed RUNTIME_CRASHED RUNTIME_CRASHED 1',
      'retry limit': 'failed POLICY_RETRY_LIMIT_EXCEEDED RUNTIME_CRASHED 2',
      'throw in a catch': 'failed USER_THROWN RUNTIME_CRASHED 2',
      'failing finally': 'failed RUNTIME_CRASHED RUNTIME_TIMEOUT 2',
      'failing cleanup of a cancelled branch': 'failed RUNTIME_CRASHED RUNTIME_OUTPUT_MALFORMED 2',
      'max steps': 'failed POLICY_MAX_STEPS_EXCEEDED POLICY_MAX_STEPS_EXCEEDED 1',
      'completed after retries': 'completed - - 0',
      cancelled: 'cancelled SYSTEM_CANCELLED SYSTEM_CANCELLED 1',
    });
    // The newest error is not the ending one in these: the window must not show it as the reason.
    for (const name of ['fail-fast', 'rethrow']) expect(liveSummary(journals.get(name) ?? []).lastError?.code, name).toBe('RUNTIME_TIMEOUT');
  });

  it('on the same journals without runFailed.chain (the shape before the failure model): both derive the same chain', async () => {
    const legacy = await openStore({ path: ':memory:' });
    try {
      for (const [name, events] of journals) {
        const stripped = events.map((e) => (e.type === 'runFailed' ? (({ chain: _chain, ...rest }) => rest)(e) : e)) as HivewatchEvent[];
        await legacy.appendEvents(stripped);
        const runId = events[0]?.runId as string;
        expect({ status: liveSummary(stripped).status, endingError: liveSummary(stripped).endingError }, name).toEqual(await stored(legacy, runId));
      }
      // Scenario journals in both shapes, as core/store's failure-model tests write them.
      for (const scenario of [
        retryLimit('l1', 'legacy'),
        rethrow('l2', 'legacy'),
        thrownInCatch('l3', 'legacy'),
        failFast('l4', 'legacy'),
        failFast('c4', 'chained'),
        finallyFailed('c5'),
      ]) {
        await legacy.appendEvents(scenario.events);
        const runId = scenario.events[0]?.runId as string;
        expect(liveSummary(scenario.events).endingError, runId).toEqual((await stored(legacy, runId)).endingError);
      }
    } finally {
      await legacy.close();
    }
  });

  it('on a run the store’s recovery ended interrupted after its host died mid-step', async () => {
    const path = join(dir, 'interrupted.db');
    const events = journals.get('fail-fast') ?? [];
    // The host journaled up to the second step's start, then died (closed without ending the run).
    const cut = events.findIndex((e) => e.type === 'stepStarted' && e.step === 2);
    const host = await openStore({ path });
    await host.appendEvents(events.slice(0, cut + 1));
    await host.close();
    const next = await openStore({ path });
    try {
      const runId = events[0]?.runId as string;
      const journal = await next.getEvents(runId, 0, 100_000);
      expect(journal.slice(-2).map((e) => e.type)).toEqual(['errorOccurred', 'runInterrupted']);
      const live = liveSummary(journal);
      expect({ status: live.status, endingError: live.endingError }).toEqual(await stored(next, runId));
      expect(live.endingError).toMatchObject({ code: 'SYSTEM_RUN_INTERRUPTED', chain: [{ seq: journal.at(-2)?.seq }] });
    } finally {
      await next.close();
    }
  });
});
