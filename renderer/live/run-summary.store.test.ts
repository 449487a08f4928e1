import { afterEach, describe, expect, it } from 'vitest';
import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../../core/base/approval-wait.js';
import type { HivewatchEvent, HivewatchEventBody, SpawnedBy } from '../../core/base/events.js';
import type { RunSummary } from '../../core/service/api.js';
import { runDetail } from '../../core/service/mapping.js';
import { openSqliteStore } from '../../core/store/index.js';
import { spawnLinks } from '../../core/store/queries/agent-tree.js';
import { caughtAndCompleted, failFast, finallyFailed, judgedCancelled, rethrow, retryLimit, thrownInCatch } from '../../core/store/testing/failure-journals.js';
import { envelope } from '../../core/store/testing/journal-builder.js';
import { usageLimitWait } from '../../core/store/testing/usage-limit-journal.js';
import { applyToLiveRun, type LiveRun } from './run-summary.js';

/**
 * The window's live row and the store's row of a run are kept by one rule (core/common/run-fields.ts)
 * plus what each keeps of its own. Fed the same journal one event at a time, the live row must
 * say after every event what the service's summary of the stored row says (and the parent the
 * store linked), so a second copy of the rule cannot drift from the first unnoticed.
 */

/** Every field of a run summary the window keeps live (not `telemetrySilence`, `usage` or `subagents`: fetched). */
const SHARED: readonly (keyof RunSummary)[] = [
  'flow',
  'flowName',
  'status',
  'clock',
  'startedAt',
  'endedAt',
  'durationMs',
  'startedWall',
  'endedWall',
  'step',
  'maxSteps',
  'flowSteps',
  'attempts',
  'errorCount',
  'retrying',
  'waitingUntil',
  'approval',
  'approvalWaitMs',
  'resumedFrom',
  'retryOf',
  'lastError',
  'endingError',
  'source',
  'spawnedBy',
];

const pick = (s: RunSummary): Record<string, unknown> => Object.fromEntries(SHARED.map((k) => [k, s[k] ?? null]));

type Store = ReturnType<typeof openSqliteStore>;
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

/** What the service says of the run as the store holds it now, with the parent the store linked. */
async function stored(store: Store, runId: string): Promise<RunSummary> {
  const detail = await store.getRun(runId);
  if (!detail) throw new Error(`the store has no run ${runId}`);
  const run = runDetail(detail, { retries: [], resumes: [], previous: null }).run;
  const { parents } = await store.runStatements((d) => spawnLinks(d, [runId]));
  const parent = parents.find((p) => p.runId === runId);
  return parent ? { ...run, spawnedBy: parent.parentRunId } : run;
}

/** Feeds `events` to a real store and to the live row one at a time; returns how many were compared. */
async function compareEachStep(events: readonly HivewatchEvent[]): Promise<number> {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  let live: LiveRun | undefined;
  let compared = 0;
  for (const event of events) {
    await store.appendEvents([event]);
    live = applyToLiveRun(live, event);
    expect(live, `a live row after ${event.type}`).toBeDefined();
    expect(pick(live!.summary), `${event.runId} after #${event.seq} ${event.type}`).toEqual(pick(await stored(store, event.runId)));
    compared += 1;
  }
  return compared;
}

const T0 = Date.UTC(2026, 10, 20);

/**
 * A Codex thread: a prompt waits on a person; a spawn naming the thread itself (not a tree), then
 * its parent, then another (the first parent stays); it goes quiet, reopens, goes quiet failed.
 */
function codexSubagentThread(runId: string): HivewatchEvent[] {
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1' };
  const parent: SpawnedBy = { runId: 'ext-codex-cli-parent', agentId: '019a0000-0000-7000-8000-00000000f1e8', agentName: null };
  const error = envelope(
    { code: 'RUNTIME_PROVIDER_ERROR', origin: 'runtime:codex-cli' },
    { project: null, flow: null, run: runId, step: 1, task: 'prompt-1', attempt: 2 },
    T0,
  );
  const bodies: HivewatchEventBody[] = [
    {
      type: 'runStarted',
      flow: 'external:codex-cli',
      flowName: 'Codex CLI session 019a1111',
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
      options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: 'codex-cli' },
      external: { origin: 'runtime:codex-cli', sessionId: runId, source: 'codex_cli_rs 0.171.0' },
    },
    { type: 'stepStarted', step: 1, frontier: [] },
    { type: 'taskStarted', ...ref, name: 'prompt 1', agent: 'codex-cli', maxAttempts: 0 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    { type: 'externalEvent', name: APPROVAL_REQUESTED, known: true, taskId: 'prompt-1', attributes: { tool: 'shell', label: 'shell(ls)', since: T0 + 2_500 } },
    { type: 'externalEvent', name: 'codex.tool_result', known: true, taskId: 'prompt-1', attributes: {} },
    { type: 'externalEvent', name: APPROVAL_ENDED, known: true, taskId: 'prompt-1', attributes: { tool: 'shell', waitedMs: 61_400.4 } },
    { type: 'externalRunSpawned', spawnedBy: { ...parent, runId } },
    { type: 'externalRunSpawned', spawnedBy: parent, flowName: 'subagent 019a0000…0000f1e8 · Codex CLI' },
    { type: 'externalRunSpawned', spawnedBy: { ...parent, runId: 'ext-codex-cli-other' }, flowName: 'subagent 019a0000…0000f1e8 · Codex CLI' },
    { type: 'attemptSucceeded', ...ref, attempt: 1, durationMs: 900 },
    { type: 'externalEvent', name: APPROVAL_REQUESTED, known: true, taskId: 'prompt-1', attributes: { tool: 'apply_patch' } },
    { type: 'externalRunIdle', quietMs: 600_000, lastEventAt: T0 + 9_000 },
    { type: 'externalRunReopened', idleSince: T0 + 9_000 },
    { type: 'attemptStarted', ...ref, attempt: 2 },
    { type: 'attemptFailed', ...ref, attempt: 2, durationMs: 400, error },
    { type: 'errorOccurred', error, caught: false, retrying: false, ...ref },
    { type: 'externalRunIdle', quietMs: 600_000, lastEventAt: T0 + 20_000, error },
  ];
  return bodies.map((body, i) => ({ ...body, runId, seq: i + 1, ts: T0 + i * 1_000 }) as HivewatchEvent);
}

describe("the window's live row and the store's row of a run say the same", () => {
  it.each([
    ['a retry limit', () => retryLimit('run_limit', 'chained').events],
    ['a rethrown error', () => rethrow('run_rethrow', 'chained').events],
    ['a catch that threw', () => thrownInCatch('run_thrown', 'chained').events],
    ['a failing finally', () => finallyFailed('run_finally').events],
    ['a fail-fast step', () => failFast('run_fast', 'legacy').events],
    ['a cancelled attempt', () => judgedCancelled('run_cancel').events],
    ['a caught error, completed', () => caughtAndCompleted('run_caught').events],
    ['a usage-limit wait', () => usageLimitWait('run_wait', { start: T0, resetAt: T0 + 3_600_000 }).events],
    ['a Codex thread named a subagent after it started', () => codexSubagentThread('ext-codex-cli-child')],
  ])('after every event of %s', async (_name, journal) => {
    const events = journal();
    expect(await compareEachStep(events)).toBe(events.length);
  });

  it('tells a difference when the live rule leaves a field behind (the comparison can fail)', async () => {
    const events = codexSubagentThread('ext-codex-cli-drift');
    const store = openSqliteStore({ path: ':memory:' });
    stores.push(store);
    await store.appendEvents(events.slice(0, 9));
    let live: LiveRun | undefined;
    // The live row misses the spawn that named the thread a subagent.
    for (const event of events.slice(0, 8)) live = applyToLiveRun(live, event);
    const differs = pick(live!.summary);
    expect(differs).not.toEqual(pick(await stored(store, 'ext-codex-cli-drift')));
    expect(differs).toMatchObject({ flowName: 'Codex CLI session 019a1111', spawnedBy: null });
  });
});
