import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { resumedTelemetry, usageLimitSession, USAGE_LIMIT_RECORDING } from '../../testing/usage-limit-otlp.js';
import { skipTitle } from '../../testing/skip.js';
import { decodeOtlp } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';
import { stopWatchingSession } from './stop-watching.js';

/**
 * An external Claude Code session stopped by its usage limit, on both engines,
 * from the recording core/testing/usage-limit-otlp.ts rewrites (Claude Code 2.1.332): it waits in
 * the `waiting-limit` state until the reset it reported, the quiet period does not end it before
 * the reset, telemetry again lifts it, silence past the reset and the quiet period ends it failed
 * with the usage limit, and the operator's cancel ends it cancelled. The ingester's clock is
 * injected; nothing sleeps.
 */

const QUIET_MS = 10 * 60_000;
/** "resets 3:17am (UTC)", read against the recorded failure at 2026-11-26T01:17:43.528Z: the end of that minute. */
const RESET_AT = Date.parse('2026-11-26T03:18:00Z');

interface Engine {
  name: string;
  skip: string | null;
  open(label: string): Promise<HivewatchStore>;
  stop(): Promise<void>;
}

function sqliteEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'hw-limit-session-'));
  return {
    name: 'SQLite',
    skip: null,
    open: (label) => openStore({ path: join(dir, `${label}.db`) }),
    stop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

function postgresEngine(): Engine {
  const databases = new TestDatabases();
  return {
    name: 'PostgreSQL',
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

describe.each([{ make: sqliteEngine }, { make: postgresEngine }])('an external session stopped by its usage limit', ({ make }) => {
  const engine = make();
  const stores: HivewatchStore[] = [];
  beforeAll(() => {
    if (engine.skip) console.warn(`usage-limit sessions on PostgreSQL skipped: ${engine.skip}`);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await engine.stop();
  });

  /** A fresh store with the stopped session ingested as recorded (the clock a minute after the failure). */
  async function stopped(label: string) {
    const store = await engine.open(label);
    stores.push(store);
    const session = usageLimitSession();
    let now = session.failedAt + 60_000;
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    for (const [i, p] of session.payloads.entries()) await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `limit#${i}`);
    const runId = (await store.listRuns({ limit: 5 })).runs[0]!.id;
    return { store, ingester, session, runId, at: (ms: number) => (now = ms), now: () => now };
  }

  const named = (text: string): string => `${engine.name}: ${text}`;

  it.skipIf(engine.skip !== null)(
    skipTitle(
      named('waits in waiting-limit until the reported reset; the quiet period does not end it before; silence after ends it failed with the limit'),
      engine.skip,
    ),
    async () => {
      const { store, ingester, session, runId, at } = await stopped('waits');
      const row = (await store.getRunRow(runId))!;
      expect({ status: row.status, waitingUntil: row.waitingUntil }).toEqual({ status: 'running', waitingUntil: RESET_AT });
      const reached = ofType(await store.getEvents(runId), 'externalLimitReached');
      expect(reached).toEqual([expect.objectContaining({ resetAt: RESET_AT, reported: session.reported, attempt: 1, ts: session.failedAt })]);
      expect((await store.listRuns({ status: ['waiting-limit'] })).runs.map((r) => r.id)).toEqual([runId]);
      expect((await store.countRuns({})).byStatus['waiting-limit']).toBe(1);

      // Long past its quiet period but before reset + quiet period: still stopped.
      at(RESET_AT + QUIET_MS - 1);
      expect(await ingester.sweep()).toEqual([]);
      expect((await store.getRunRow(runId))!.waitingUntil).toBe(RESET_AT);

      at(RESET_AT + QUIET_MS + 1);
      expect(await ingester.sweep()).toEqual([runId]);
      const ended = (await store.getRun(runId))!;
      expect({ status: ended.run.status, waitingUntil: ended.run.waitingUntil, code: ended.run.error?.code }).toEqual({
        status: 'failed',
        waitingUntil: null,
        code: 'RUNTIME_RATE_LIMIT',
      });
      expect(ended.run.error?.context).toMatchObject({ usageLimit: true, resetAt: RESET_AT, resetReported: session.reported });
      expect(ended.tasks.map((t) => [t.status, t.waitingUntil])).toEqual([['failed', null]]);
      expect((await store.listRuns({ status: ['waiting-limit'] })).runs).toEqual([]);
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    },
  );

  it.skipIf(engine.skip !== null)(
    skipTitle(named("its traces arriving after its logs (exporters batch apart) do not lift the stop: they are the failed request's own"), engine.skip),
    async () => {
      const store = await engine.open('traces-last');
      stores.push(store);
      const session = usageLimitSession();
      const ingester = new OtelIngester(store, { now: () => session.failedAt + 60_000, quietMs: QUIET_MS });
      const reversed = [...session.payloads].reverse();
      expect(reversed.map((p) => p.signal)).toEqual(['logs', 'traces']);
      for (const [i, p] of reversed.entries()) await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `reversed#${i}`);
      const runId = (await store.listRuns({ limit: 5 })).runs[0]!.id;
      expect((await store.getRunRow(runId))!.waitingUntil).toBe(RESET_AT);
      expect(ofType(await store.getEvents(runId), 'externalLimitLifted')).toEqual([]);
    },
  );

  it.skipIf(engine.skip !== null)(
    skipTitle(
      named('telemetry again before the reset (the user resumed the session) lifts the stop; the session then ends as its last prompt did'),
      engine.skip,
    ),
    async () => {
      const { store, ingester, session, runId, at } = await stopped('resumed');
      const resumedAt = session.failedAt + 30 * 60_000;
      at(resumedAt + 5_000);
      for (const [i, p] of resumedTelemetry(session.sessionId, resumedAt).entries())
        await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `resumed#${i}`);
      const row = (await store.getRunRow(runId))!;
      expect({ status: row.status, waitingUntil: row.waitingUntil }).toEqual({ status: 'running', waitingUntil: null });
      const events = await store.getEvents(runId);
      expect(ofType(events, 'externalLimitLifted')).toEqual([
        expect.objectContaining({ resetAt: RESET_AT, taskId: ofType(events, 'externalLimitReached')[0]!.taskId }),
      ]);
      expect((await store.listRuns({ status: ['waiting-limit'] })).runs).toEqual([]);

      at(resumedAt + QUIET_MS + 60_000);
      expect(await ingester.sweep()).toEqual([runId]);
      const ended = (await store.getRun(runId))!;
      // The stopped prompt failed with the limit (handled: the session went on); the resumed one answered.
      expect(ended.run.status).toBe('completed');
      expect(ended.tasks.map((t) => t.status)).toEqual(['failed', 'succeeded']);
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    },
  );

  it.skipIf(engine.skip !== null)(
    skipTitle(named("the operator's cancel stops watching: the run ends cancelled, journaled; later telemetry reopens it"), engine.skip),
    async () => {
      const { store, ingester, session, runId, at, now } = await stopped('cancelled');
      const cause = { commandId: 'cmd-stop-1', reason: 'cancelled by the operator: Hivewatch stopped watching the session it could not stop' };
      expect(await stopWatchingSession(store, runId, cause, now())).toBe(true);
      const detail = (await store.getRun(runId))!;
      expect({ status: detail.run.status, waitingUntil: detail.run.waitingUntil, ending: detail.run.endingCode, reason: detail.run.cancelReason }).toEqual({
        status: 'cancelled',
        waitingUntil: null,
        ending: 'SYSTEM_CANCELLED',
        reason: cause.reason,
      });
      expect(detail.tasks.map((t) => [t.status, t.waitingUntil])).toEqual([['cancelled', null]]);
      expect(ofType(await store.getEvents(runId), 'runCancelled')).toEqual([expect.objectContaining({ cause })]);
      // Once ended it is no longer stopped: a second cancel finds nothing to do, and the sweep leaves it.
      expect(await stopWatchingSession(store, runId, cause, now())).toBe(false);
      at(RESET_AT + QUIET_MS + 1);
      expect(await ingester.sweep()).toEqual([]);

      for (const [i, p] of resumedTelemetry(session.sessionId, RESET_AT + QUIET_MS + 2).entries())
        await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `later#${i}`);
      expect((await store.getRunRow(runId))!.status).toBe('running');
      expect(ofType(await store.getEvents(runId), 'externalRunReopened')).toHaveLength(1);
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    },
  );

  it.skipIf(engine.skip !== null)(
    skipTitle(named("sent from inside a Hivewatch attempt (linked), it never stops: the attempt's own retry waits for the reset"), engine.skip),
    async () => {
      const store = await engine.open('linked');
      stores.push(store);
      const session = usageLimitSession(0, true);
      const ingester = new OtelIngester(store, { now: () => session.failedAt + 60_000, quietMs: QUIET_MS });
      for (const [i, p] of session.payloads.entries()) await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `linked#${i}`);
      const runId = (await store.listRuns({ limit: 5 })).runs[0]!.id;
      expect((await store.getRunRow(runId))!.waitingUntil).toBeNull();
      expect(ofType(await store.getEvents(runId), 'externalLimitReached')).toEqual([]);
      // The failure itself is read as the usage limit it is.
      expect(ofType(await store.getEvents(runId), 'attemptFailed')[0]?.error.context).toMatchObject({ usageLimit: true, resetAt: RESET_AT });
    },
  );

  it.skipIf(engine.skip !== null)(
    skipTitle(named(`as recorded (${USAGE_LIMIT_RECORDING}), the telemetry names no reset: a plain rate limit, not stopped`), engine.skip),
    async () => {
      const store = await engine.open('as-recorded');
      stores.push(store);
      const session = usageLimitSession();
      const now = session.failedAt + 60_000;
      const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
      const recorded = session.payloads.map((p) => ({
        ...p,
        body: Buffer.from(p.body.toString('utf8').split(JSON.stringify(session.reported).slice(1, -1)).join(session.recordedError)),
      }));
      for (const [i, p] of recorded.entries()) await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `recorded#${i}`);
      const runId = (await store.listRuns({ limit: 5 })).runs[0]!.id;
      expect((await store.getRunRow(runId))!.waitingUntil).toBeNull();
      expect(ofType(await store.getEvents(runId), 'externalLimitReached')).toEqual([]);
      expect((await store.listErrors({ limit: 5 })).errors.map((e) => e.code)).toEqual(['RUNTIME_RATE_LIMIT']);
    },
  );
});
