import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_ENDED } from '../../base/approval-wait.js';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { skipTitle } from '../../testing/skip.js';
import { OtelIngester } from '../receive/ingest.js';
import { isStoppedExternalSession, stopWatchingSession } from '../session/stop-watching.js';
import { claudeCodeLogs } from '../testing.js';

/**
 * The operator's cancel of an external Claude Code session whose permission prompt waits on a
 * person, on both engines (docs/otel.md "Waiting for approval"): Hivewatch did not start the CLI,
 * so the cancel stops watching — the prompt closes with the time waited up to the cancel, the run
 * ends cancelled and leaves the `waiting-approval` list, and its time waited no longer grows. The
 * ingester's clock is injected; nothing sleeps.
 */

const MINUTE = 60_000;
const QUIET_MS = 2 * MINUTE;
const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
const SESSION = '5d1f7a2e-3c4b-4e6f-9a8b-7c6d5e4f3a2b';
const CAUSE = { commandId: 'cmd-approval-1', reason: 'the operator stopped watching this session (Hivewatch cannot stop the agent)' };

interface Engine {
  skip: string | null;
  open(label: string): Promise<HivewatchStore>;
  stop(): Promise<void>;
}

function sqliteEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'hw-approval-stop-'));
  return {
    skip: null,
    open: (label) => openStore({ path: join(dir, `${label}.db`) }),
    stop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

function postgresEngine(): Engine {
  const databases = new TestDatabases();
  return {
    skip: postgresBinaries ? null : postgresMissing,
    async open(label) {
      await databases.start();
      const url = await databases.fresh(label.replace(/[^a-z0-9]/g, '_'));
      await databases.endPools();
      return openStore({ path: url });
    },
    stop: () => databases.stop(),
  };
}

const ofType = <T extends HivewatchEvent['type']>(events: HivewatchEvent[], type: T): EventOf<T>[] => events.filter((e): e is EventOf<T> => e.type === type);

describe.each([
  { name: 'SQLite', make: sqliteEngine },
  { name: 'PostgreSQL', make: postgresEngine },
])('a session waiting for approval, cancelled on $name', ({ name, make }) => {
  const engine = make();
  const stores: HivewatchStore[] = [];
  beforeAll(() => {
    if (engine.skip) console.warn(`stopping a waiting session on ${name} skipped: ${engine.skip}`);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await engine.stop();
  });

  /** A fresh store with a session whose PermissionRequest hook opened a prompt at T0 + 2 s. */
  async function waiting(label: string) {
    const store = await engine.open(label);
    stores.push(store);
    const clock = { now: T0 + 3000 };
    const ingester = new OtelIngester(store, { now: () => clock.now, quietMs: QUIET_MS });
    const opened = claudeCodeLogs(
      [
        ['user_prompt', { 'prompt.id': 'p-1' }],
        ['hook_execution_start', { 'prompt.id': 'p-1', hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
      ],
      SESSION,
      T0,
    );
    const [runId] = (await ingester.ingest(opened, null)).runIds;
    return { store, ingester, clock, runId: runId! };
  }

  it.skipIf(engine.skip !== null)(
    skipTitle('the cancel closes the prompt with the time waited, ends the run cancelled, and the wait stops growing', engine.skip),
    async () => {
      const { store, ingester, clock, runId } = await waiting('cancelled');
      const before = (await store.getRunRow(runId))!;
      expect(before).toMatchObject({ status: 'running', approvalSince: T0 + 2000, approvalLabel: 'Bash', approvalWaitMs: 0 });
      expect(isStoppedExternalSession(before)).toBe(true);

      clock.now = T0 + 12 * MINUTE;
      expect(await stopWatchingSession(store, runId, CAUSE, clock.now)).toBe(true);
      const waited = 12 * MINUTE - 2000;
      const after = (await store.getRunRow(runId))!;
      expect(after).toMatchObject({ status: 'cancelled', approvalSince: null, approvalLabel: null, approvalWaitMs: waited });
      expect(isStoppedExternalSession(after)).toBe(false);
      expect((await store.listRuns({ status: ['waiting-approval'] })).runs).toEqual([]);

      const events = await store.getEvents(runId);
      const ended = events.filter((e): e is EventOf<'externalEvent'> => e.type === 'externalEvent' && e.name === APPROVAL_ENDED);
      expect(ended.map((e) => [e.ts, e.attributes.waitedMs, e.attributes.decision, e.attributes.via])).toEqual([
        [T0 + 12 * MINUTE, waited, null, 'hivewatch.stopped_watching'],
      ]);
      expect(ofType(events, 'runCancelled').map((e) => e.cause)).toEqual([CAUSE]);
      // The prompt closes before the run ends: the journal reads as the session went.
      expect(events.findIndex((e) => e === ended[0])).toBeLessThan(events.findIndex((e) => e.type === 'runCancelled'));

      // An hour on, the sweep leaves the ended session and its time waited is what it was at the cancel.
      clock.now = T0 + 72 * MINUTE;
      expect(await ingester.sweep()).toEqual([]);
      expect(await store.getRunRow(runId)).toMatchObject({ status: 'cancelled', approvalWaitMs: waited });
      expect(await stopWatchingSession(store, runId, CAUSE, clock.now)).toBe(false);
      expect(await store.replayRun(runId)).toMatchObject({ ok: true, diffs: [] });
    },
  );

  it.skipIf(engine.skip !== null)(skipTitle('a session answered before the cancel is no longer paused: the cancel does nothing', engine.skip), async () => {
    const { store, ingester, clock, runId } = await waiting('answered');
    clock.now = T0 + 5 * MINUTE;
    await ingester.ingest(claudeCodeLogs([['tool_result', { 'prompt.id': 'p-1', tool_name: 'Bash', success: 'true' }]], SESSION, T0 + 5 * MINUTE - 1000), null);
    const answered = (await store.getRunRow(runId))!;
    expect(answered).toMatchObject({ status: 'running', approvalSince: null });
    expect(isStoppedExternalSession(answered)).toBe(false);
    expect(await stopWatchingSession(store, runId, CAUSE, clock.now)).toBe(false);
    expect(await store.getRunRow(runId)).toMatchObject({ status: 'running' });
  });
});
