import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { flowDigest } from '../../flow/plan/digest.js';
import { IssueTransitions } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { envelope, JournalBuilder, type ErrorSpec } from '../../store/testing/journal-builder.js';
import { addAlertRule } from '../alerts/alerts-api.js';
import { AlertEngine } from '../alerts/engine.js';
import { TestReceiver } from '../alerts/testing.js';
import { issueDetail } from './page.js';
import { IssueBook } from './book.js';

/**
 * An issue's page on every engine (docs/triage.md "The issue page"): "first seen after a flow
 * change" on two versions of one flow (the first occurrence's run against the same flow's run
 * before it, by their journaled digests and texts), a first occurrence in the flow's first run
 * and one after an unchanged flow; the latest occurrence with its cause chain; the activity (first
 * seen, new, resolved by the CLI, regressed, and the alerts delivered about it through a real
 * receiver); and what its failed runs cost from their reported usage.
 */

const { engines, start, stop } = testEngines('issue-page');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20, 9);
const V1 = 'agent coder:\n  prompt: "add the endpoint"\n';
const V2 = 'agent coder:\n  prompt: "add the endpoint and its test"\n';
const TIMEOUT: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 30000ms' };
const CONFLICT: ErrorSpec = { code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in src/app.ts' };

/** A run of user/api.prose at `at` that ran `text`; its step fails on `error` (or completes). */
function run(id: string, at: number, text: string, error: ErrorSpec | null, costUsd?: number): HivewatchEvent[] {
  const b = new JournalBuilder(id, { start: at, flow: 'user/api.prose', flowName: 'api' });
  b.push({
    type: 'runStarted',
    flow: 'user/api.prose',
    flowName: 'api',
    options: { maxSteps: 100, concurrency: 4, clock: 'real', defaultAgent: 'fake' },
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
    flowDigest: flowDigest(text),
    flowText: text,
  });
  b.runStep([{ attempts: [error ?? 'ok'] }]);
  const events = (error ? b.fail() : b.complete()).events;
  if (costUsd === undefined) return events;
  return events.map((e) => (e.type === 'attemptFailed' ? { ...e, usage: { inputTokens: 1_000, outputTokens: 200, costUsd, source: 'result' as const } } : e));
}

describe.each(engines)('the issue page on $name', (engine) => {
  const opened: { stores: HivewatchStore[]; receivers: TestReceiver[] } = { stores: [], receivers: [] };
  afterEach(async () => {
    await Promise.all(opened.receivers.splice(0).map((r) => r.stop()));
    await Promise.all(opened.stores.splice(0).map((s) => s.close()));
  });

  it('first seen after a flow change names both versions; a first run, and an unchanged flow, are told apart', async () => {
    const clock = { now: T0 + 10 * HOUR };
    const store = await openStore({ path: await engine.fresh(), now: () => clock.now });
    opened.stores.push(store);
    await store.appendEvents([
      ...run('run-1', T0, V1, CONFLICT),
      ...run('run-2', T0 + HOUR, V1, null),
      ...run('run-3', T0 + 2 * HOUR, V2, TIMEOUT),
      ...run('run-4', T0 + 3 * HOUR, V2, TIMEOUT),
    ]);
    const book = new IssueBook({ store, hub: new IssueTransitions(), host: 'h1', now: () => clock.now });
    await book.reconcile();
    const issues = (await book.list({})).items;
    const timeout = issues.find((i) => i.code === 'RUNTIME_TIMEOUT')!;
    const conflict = issues.find((i) => i.code === 'GIT_MERGE_CONFLICT')!;

    const page = await issueDetail(book, store, { id: timeout.id });
    expect(page.flowChange).toEqual({
      flow: 'user/api.prose',
      flowName: 'api',
      first: { runId: 'run-3', startedAt: expect.any(Number) as number, digest: flowDigest(V2), text: V2 },
      before: { runId: 'run-2', startedAt: expect.any(Number) as number, digest: flowDigest(V1), text: V1 },
      changed: true,
    });
    // The conflict was first seen in the flow's first run: nothing before it to compare.
    expect((await issueDetail(book, store, { id: conflict.id })).flowChange).toMatchObject({
      first: { runId: 'run-1', digest: flowDigest(V1) },
      before: null,
      changed: null,
    });

    // A new failure in run-5 of the same version as run-4 before it: not after a change.
    await store.appendEvents(run('run-5', T0 + 4 * HOUR, V2, { code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: 'agent coder produced no changes' }));
    const noChanges = (await book.list({})).items.find((i) => i.code === 'AGENT_NO_CHANGES')!;
    expect((await issueDetail(book, store, { id: noChanges.id })).flowChange).toMatchObject({
      first: { runId: 'run-5' },
      before: { runId: 'run-4' },
      changed: false,
    });
  });

  it('shows the latest occurrence with its cause chain, the activity with the alerts delivered, and what its failed runs cost', async () => {
    const clock = { now: T0 };
    const store = await openStore({ path: await engine.fresh(), now: () => clock.now });
    opened.stores.push(store);
    const receiver = new TestReceiver();
    opened.receivers.push(receiver);
    const url = await receiver.start();
    const alerts = new AlertEngine({ store, now: () => clock.now, host: 'h1' });
    for (const when of ['new-issue', 'regression']) await addAlertRule(store, { when, webhook: `${url}/${when}`, throttle: '0' }, 'test', T0);
    const hub = new IssueTransitions();
    const queued: Promise<void>[] = [];
    hub.subscribe((t) => queued.push(alerts.onIssueTransition(t)));
    const book = new IssueBook({ store, hub, host: 'h1', now: () => clock.now });
    const settle = async (): Promise<void> => {
      await book.reconcile();
      await Promise.all(queued.splice(0));
      await alerts.pump();
    };

    await store.appendEvents(run('run-1', T0, V1, TIMEOUT, 0.25));
    clock.now = T0 + HOUR;
    await settle();
    const id = (await book.list({})).items[0]!.id;
    clock.now = T0 + HOUR + 60_000;
    await book.setStatus({ id, action: 'resolve', by: 'cli', reason: 'raised the timeout' });
    clock.now = T0 + HOUR + 120_000;
    await settle();
    // It comes back: the run fails on the timeout, retried into a second attempt whose error
    // carries the first as its cause (as a retry limit's envelope does).
    const b = new JournalBuilder('run-2', { start: T0 + 2 * HOUR, flow: 'user/api.prose', flowName: 'api' }).start();
    b.runStep([{ attempts: [TIMEOUT] }]);
    const cause = b.events.find((e) => e.type === 'errorOccurred')!.error as ErrorEnvelope;
    const head: ErrorEnvelope = { ...envelope(TIMEOUT, { ...cause.correlation, attempt: 2 }, b.ts), cause };
    b.push({ type: 'errorOccurred', error: head, caught: false, retrying: false, step: 1, ordinal: 0, taskId: '1:0' });
    await store.appendEvents(
      b.fail(head).events.map((e) => (e.type === 'attemptFailed' ? { ...e, usage: { inputTokens: 10, costUsd: 0.5, source: 'result' as const } } : e)),
    );
    clock.now = T0 + 3 * HOUR;
    await settle();

    const page = await issueDetail(book, store, { id });
    expect(page.latest?.occurrence).toMatchObject({ runId: 'run-2', code: 'RUNTIME_TIMEOUT', correlation: { run: 'run-2', task: '1:0', attempt: 2 } });
    expect(page.latest?.chain.map((e) => [e.code, e.correlation.attempt])).toEqual([
      ['RUNTIME_TIMEOUT', 2],
      ['RUNTIME_TIMEOUT', 1],
    ]);
    expect(page.origins).toEqual(['runtime:fake']);
    expect(page.flows).toEqual([{ flow: 'user/api.prose', flowName: 'api', occurrences: 3 }]);
    // The new issue's alert, the resolve's follow-up to it, the regression's alert: each sent.
    expect(page.activity.map((a) => [a.kind, a.by, a.kind === 'alert' ? `${a.alert?.kind} ${a.alert?.status}` : a.text])).toEqual([
      ['first-seen', null, null],
      ['new', 'host:h1', 'first occurrence'],
      ['alert', null, 'fire sent'],
      ['resolved', 'cli', 'raised the timeout'],
      ['alert', null, 'resolve sent'],
      ['regressed', 'host:h1', 'seen again after it was resolved'],
      ['alert', null, 'fire sent'],
    ]);
    expect(page.activity[0]?.cause).toBe('run-1#6');
    expect(receiver.requests.map((r) => r.path)).toEqual(['/new-issue', '/new-issue', '/regression']);
    // Two runs failed on it; each reported its failed attempts' cost.
    expect(page.cost).toEqual({ failedRuns: 2, reported: 2, costUsd: 0.75, unknownCostAttempts: 0 });
    expect(page.issue).toMatchObject({ id, status: 'unresolved', substatus: 'regressed', failures: 2, runs: 2 });
  });
});
