import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { NOT_STORED_KEY } from '../content/kept.js';
import { ADJUSTED_EVENT, FUTURE_SLACK_MS, SANE_TIME_MIN_MS } from './bounds.js';
import { HOSTILE_SESSIONS, hostilePayloads } from '../../testing/hostile-otlp.js';
import { startOtlpReceiver, type OtlpReceiver } from './receiver.js';
import { skipTitle } from '../../testing/skip.js';
import { UNHURRIED_QUEUE } from '../testing.js';

/**
 * The hostile OTLP set sent to a real receiver over HTTP, on both engines: each
 * payload gets the answer it must (200, or 400 with its reason), what is taken is journaled with
 * sane times and the reasons for what was changed, and nothing a payload sent under a prototype
 * key is read as if it were the record's own.
 */

interface Engine {
  name: string;
  skip: string | null;
  open(): Promise<HivewatchStore>;
  stop(): Promise<void>;
}

function sqliteEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'hw-hostile-'));
  return {
    name: 'SQLite',
    skip: null,
    open: () => openStore({ path: join(dir, 'hw.db') }),
    stop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

function postgresEngine(): Engine {
  const databases = new TestDatabases();
  return {
    name: 'PostgreSQL',
    skip: postgresBinaries ? null : postgresMissing,
    async open() {
      await databases.start();
      const url = await databases.fresh('hostile');
      await databases.endPools();
      return openStore({ path: url });
    },
    stop: () => databases.stop(),
  };
}

describe.each([{ make: sqliteEngine }, { make: postgresEngine }])('hostile telemetry', ({ make }) => {
  const engine = make();
  if (engine.skip) console.warn(`hostile telemetry on PostgreSQL skipped: ${engine.skip}`);
  let store: HivewatchStore;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    if (engine.skip) return;
    store = await engine.open();
    receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
  });
  afterAll(async () => {
    await receiver?.close();
    await store?.close();
    await engine.stop();
  });

  it.skipIf(engine.skip !== null)(
    skipTitle(`${engine.name}: every payload is answered as it must be, and what is taken is sane and says what changed`, engine.skip),
    async () => {
      const sentAt = Date.now();
      const answers: Record<string, { status: number; error: string | null }> = {};
      for (const payload of hostilePayloads(sentAt)) {
        const response = await fetch(`${receiver.endpoint}/v1/${payload.signal}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${receiver.token}`, 'content-type': payload.contentType },
          body: new Uint8Array(payload.body),
        });
        const text = await response.text();
        answers[payload.name] = { status: response.status, error: text.startsWith('{') ? ((JSON.parse(text) as { error?: string }).error ?? null) : null };
        const expected = payload.expect;
        expect({ name: payload.name, status: response.status }).toEqual({ name: payload.name, status: expected.status });
        if (expected.status === 400) expect(answers[payload.name]?.error).toMatch(expected.error);
      }
      const doneAt = Date.now();

      const runs = (await store.listRuns({ limit: 100 })).runs;
      const sessions = await Promise.all(runs.map(async (run) => ({ run, events: await store.getEvents(run.id) })));
      const sessionOf = (events: HivewatchEvent[]): string => {
        const started = events.find((e): e is EventOf<'runStarted'> => e.type === 'runStarted');
        return started?.external?.sessionId ?? '';
      };
      const ids = sessions.map((s) => sessionOf(s.events));
      for (const session of HOSTILE_SESSIONS) expect(ids).toContain(session);
      // The megabyte session id is shortened with its digest; nothing a prototype key carried became a session.
      expect(ids.find((id) => id.startsWith('huge-x'))).toMatch(/^huge-x{200,}\.sha256-[0-9a-f]{32}$/);
      expect(ids.every((id) => id.length <= 256)).toBe(true);
      expect(ids).not.toContain('smuggled-session');

      // Every journaled time is sane: after 2000, at most a day after the payload arrived.
      for (const { events } of sessions) {
        for (const event of events) {
          expect(event.ts, `${event.type} of ${sessionOf(events)}`).toBeGreaterThanOrEqual(SANE_TIME_MIN_MS);
          expect(event.ts, `${event.type} of ${sessionOf(events)}`).toBeLessThanOrEqual(doneAt + FUTURE_SLACK_MS);
        }
      }
      const errors = (await store.listErrors({ limit: 100 })).errors;
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) expect(error.ts).toBeLessThanOrEqual(doneAt);

      // The reasons are kept beside the events they changed.
      const adjusted = (session: string): unknown[] =>
        (sessions.find((s) => sessionOf(s.events) === session)?.events ?? [])
          .filter((e): e is EventOf<'externalEvent'> => e.type === 'externalEvent' && e.name === ADJUSTED_EVENT)
          .flatMap((e) => e.attributes.adjustments as unknown[]);
      expect(adjusted('hostile-time-2300')).toEqual([
        expect.objectContaining({
          field: 'timeUnixNano',
          given: '10413792000000000000',
          reason: 'more than a day after it arrived: recorded at the time it arrived',
        }),
      ]);
      expect(adjusted('hostile-time-max')).toEqual([
        expect.objectContaining({ given: '18446744073709551615', reason: expect.stringMatching(/^more than a day after it arrived/) }),
      ]);
      expect(adjusted('hostile-time-40')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'timeUnixNano', reason: expect.stringMatching(/^more nanoseconds than a fixed64 holds/) }),
          expect.objectContaining({ field: 'attributes.duration_ms', given: '1e+308', used: 0, reason: 'longer than a day: counted as 0 ms' }),
        ]),
      );
      expect(adjusted('hostile-time-1970')).toEqual([expect.objectContaining({ given: '1000', reason: expect.stringMatching(/^before 2000-01-01/) })]);
      expect(adjusted('hostile-time-number')).toEqual([
        expect.objectContaining({ given: '10000000000000000905969664', reason: expect.stringMatching(/^more nanoseconds than a fixed64 holds/) }),
      ]);
      expect(adjusted('hostile-types')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'resource.hivewatch.attempt', used: null }),
          expect.objectContaining({ field: 'attributes.status_code', given: '100000000000000000000', used: null }),
          expect.objectContaining({ field: 'attributes.duration_ms', given: '-5', reason: 'negative: counted as 0 ms' }),
        ]),
      );
      expect(adjusted('hostile-nul\uFFFDsession')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'session.id', given: 'hostile-nul\uFFFDsession', reason: 'NUL or unpaired surrogate replaced by U+FFFD' }),
          expect.objectContaining({ field: 'attributes.error', used: 'bad\uFFFDmessage \uFFFD' }),
        ]),
      );
      const nulError = errors.find((e) => e.message.includes('bad\uFFFDmessage'));
      expect(nulError?.message).toBe('claude-code: the API is rate limited or overloaded (HTTP 529): bad\uFFFDmessage \uFFFD');

      // Prototype keys are data: kept, shown as keys, and never read as the record's own values.
      const proto = sessions.find((s) => sessionOf(s.events) === 'hostile-proto');
      expect(proto?.run.flow).toBe('external:claude-code');
      const protoError = proto?.events.find((e): e is EventOf<'errorOccurred'> => e.type === 'errorOccurred');
      expect(protoError?.error.context).toMatchObject({ prompt: null, session: 'hostile-proto' });
      const trace = sessions.find((s) => sessionOf(s.events) === 'hostile-trace');
      const traceEvent = trace?.events.find((e): e is EventOf<'externalEvent'> => e.type === 'externalEvent' && e.name !== ADJUSTED_EVENT);
      // An attribute no allow-list names is not kept (content/kept.ts), `__proto__` included: its name is listed, its value dropped.
      expect(traceEvent?.attributes[NOT_STORED_KEY]).toContain('__proto__');
      expect(JSON.stringify(traceEvent?.attributes)).not.toContain('kept as data');
      expect(Object.getPrototypeOf(traceEvent?.attributes)).toBe(Object.prototype);
      expect(traceEvent?.name).toMatch(/^codex\.\uFFFDe+…$/);

      // Refused payloads wrote nothing, and the journal still adds up.
      expect(answers['depth-json-10000']?.status).toBe(400);
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
      expect(sentAt).toBeLessThanOrEqual(doneAt);
    },
  );
});
