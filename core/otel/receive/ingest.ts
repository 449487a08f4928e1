import type { HivewatchEvent } from '../../base/events.js';
import { externalSessions, type ExternalSessionRow } from '../../store/queries/external.js';
import { storableKey } from '../../store/projection/storable.js';
import { isStoreError } from '../../store/store-error.js';
import type { HivewatchStore } from '../../store/contract.js';
import type { TelemetryRecord } from './decode.js';
import { genAiSessionOf } from '../genai/fact.js';
import { sessionKeyOf, sessionOf, type SessionRef } from '../mapping.js';
import { newSessionRow, planIdle, planSession, type PlannedEvent } from '../session/session-events.js';
import { agentSessionOf, completionOf } from '../subagents.js';
import { saneTime } from './bounds.js';
import { quietDeadline } from '../session/session-limit.js';

/**
 * Journals decoded telemetry: one `store.ingestExternal` = one transaction (the payloads'
 * digests, the sessions' bookkeeping and every event, through the store's `appendEvents`), so a
 * payload counts whole or not at all, and an exporter's retry of it counts once. The ingest queue
 * hands several waiting payloads over at once (`ingestMany`): one transaction for them all.
 */

/**
 * A session that sends nothing for this long ends (docs/otel.md "Sessions": the CLIs send no
 * session end). Two minutes: longer than any pause a working CLI leaves in its exports (Claude
 * Code sends logs every 5 s, Codex every second; a model call that streams keeps exporting), short
 * enough that a finished session reads finished while the operator still looks at it.
 */
export const DEFAULT_QUIET_MS = 2 * 60_000;
/**
 * A session sent from inside a Hivewatch attempt ends this long after its attempt ended and its
 * last telemetry arrived: both CLIs flush as they exit, before the attempt's end is journaled, so
 * anything later is an export still in transit.
 */
export const LINKED_GRACE_MS = 5_000;
/** The setting that lets prompt text into the journal: `hivewatch` stores it only when this is `on`. */
export const STORE_PROMPTS_SETTING = 'otel.store_prompts';

export interface IngesterOptions {
  /** Wall clock (ms). Default Date.now. */
  now?: () => number;
  quietMs?: number;
}

/** One payload's decoded records and its digest (null: no dedupe). */
export interface Payload {
  records: readonly TelemetryRecord[];
  digest: string | null;
}

export interface IngestResult {
  records: number;
  /** The payload was ingested before: nothing was written. */
  duplicate: boolean;
  /** The external runs the payload touched. */
  runIds: string[];
  /** Records that named no session and found no one open session of their agent to join: not journaled. */
  unattached: number;
}

function withSeq(runId: string, from: number, planned: readonly PlannedEvent[]): HivewatchEvent[] {
  return planned.map((e, i) => ({ ...e, runId, seq: from + i + 1 }) as HivewatchEvent);
}

export class OtelIngester {
  readonly quietMs: number;
  private readonly now: () => number;
  /** Ingests and sweeps run one at a time: each reads a session's row and writes it back. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: HivewatchStore,
    options: IngesterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Ingests the records of one payload; `digest` identifies the payload (null: no dedupe). */
  async ingest(records: readonly TelemetryRecord[], digest: string | null): Promise<IngestResult> {
    const [outcome] = await this.ingestMany([{ records, digest }]);
    if (outcome?.status !== 'fulfilled') throw outcome?.reason;
    return outcome.value;
  }

  /**
   * Ingests several payloads in one transaction (the queue's group commit: one commit, one write
   * of each session's run row and bookkeeping for all of them), each with its own outcome. When
   * the group's transaction fails — a payload ingested before, a payload the store refuses — each
   * is journaled in a transaction of its own, so one payload never decides another's answer; an
   * unavailable database fails them all (one at a time would fail the same way).
   */
  ingestMany(payloads: readonly Payload[]): Promise<PromiseSettledResult<IngestResult>[]> {
    return this.exclusive(async () => {
      if (payloads.length <= 1) return Promise.allSettled(payloads.map((payload) => this.ingestNow([payload]).then(([result]) => result as IngestResult)));
      try {
        return (await this.ingestNow(payloads)).map((value) => ({ status: 'fulfilled', value }) as const);
      } catch (error) {
        if (isStoreError(error, 'unavailable')) return payloads.map(() => ({ status: 'rejected', reason: error }) as const);
        const outcomes: PromiseSettledResult<IngestResult>[] = [];
        for (const payload of payloads) {
          outcomes.push(...(await Promise.allSettled([this.ingestNow([payload]).then(([result]) => result as IngestResult)])));
        }
        return outcomes;
      }
    });
  }

  /** One transaction for the payloads: each planned in turn against the sessions as the ones before it left them. */
  private async ingestNow(payloads: readonly Payload[]): Promise<IngestResult[]> {
    const receivedAt = this.now();
    const storePrompts = (await this.store.getSetting(STORE_PROMPTS_SETTING)) === 'on';
    // Each session's row as the payloads before left it (else as stored), keyed as stored: a key
    // too long for an index is kept hashed (storable.ts).
    const rows = new Map<string, ExternalSessionRow>();
    const written = new Map<string, ExternalSessionRow>();
    const events: HivewatchEvent[] = [];
    const results: IngestResult[] = [];
    for (const payload of payloads) {
      const { bySession, unattached } = await this.bySession(payload.records, rows);
      // The sessions not read yet, in one statement (one round trip on PostgreSQL).
      const unread = [...bySession.keys()].filter((key) => !rows.has(storableKey(key)));
      for (const row of await this.store.runStatements((dialect) => externalSessions(dialect, unread))) rows.set(row.sessionKey, row);
      const runIds: string[] = [];
      for (const [key, { session, records: own }] of bySession) {
        const before = rows.get(storableKey(key)) ?? newSessionRow(session, receivedAt);
        const plan = planSession(session, before, own, { storePrompts, receivedAt });
        events.push(...withSeq(before.runId, before.lastSeq, plan.events));
        const after = this.endedIfDone(session, own, { ...plan.row, lastSeq: before.lastSeq + plan.events.length }, events, receivedAt);
        rows.set(storableKey(key), after);
        written.set(key, after);
        runIds.push(before.runId);
      }
      results.push({ records: payload.records.length, duplicate: false, runIds, unattached });
    }
    const single = payloads.length === 1 ? (payloads[0] as Payload) : null;
    const batch = single
      ? { digest: single.digest, records: single.records.length }
      : { digest: null, records: 0, payloads: payloads.flatMap((p) => (p.digest === null ? [] : [{ digest: p.digest, records: p.records.length }])) };
    const fresh = await this.store.ingestExternal({ ...batch, receivedAt, sessions: [...written.values()] }, events);
    if (!fresh) return results.map((result) => ({ ...result, duplicate: true }));
    return results;
  }

  /** A subagent that reported it finished ends now, with the status its last request gave it (its ending events pushed to `events`). */
  private endedIfDone(
    session: SessionRef,
    own: readonly TelemetryRecord[],
    row: ExternalSessionRow,
    events: HivewatchEvent[],
    receivedAt: number,
  ): ExternalSessionRow {
    const done = session.spawnedBy ? completionOf(own) : null;
    if (done === null) return row;
    const at = saneTime(done.timeMs, done.timeGiven, done.timeField, receivedAt).ts;
    const ending = planIdle(row, this.quietMs, at);
    events.push(...withSeq(row.runId, row.lastSeq, ending.events));
    return { ...ending.row, lastSeq: row.lastSeq + ending.events.length };
  }

  /** A payload's records by the session each belongs to; those that find none are counted. */
  private async bySession(
    records: readonly TelemetryRecord[],
    planned: ReadonlyMap<string, ExternalSessionRow>,
  ): Promise<{ bySession: Map<string, { session: SessionRef; records: TelemetryRecord[] }>; unattached: number }> {
    const bySession = new Map<string, { session: SessionRef; records: TelemetryRecord[] }>();
    const joined = new Map<string, SessionRef | null>();
    let unattached = 0;
    for (const record of records) {
      // A GenAI span (genai-span.ts) names its session by its conversation or trace; the CLIs' records by theirs.
      const named = record.span ? genAiSessionOf(record) : agentSessionOf(sessionOf(record), record);
      const session = named.anonymous ? await this.openSessionOf(named, joined, planned) : named;
      if (session === null) {
        unattached += 1;
        continue;
      }
      const key = sessionKeyOf(session);
      const group = bySession.get(key);
      if (group === undefined) bySession.set(key, { session, records: [record] });
      else {
        group.records.push(record);
        // A record that names the session's parent (Codex's spawn record) links it, whichever of its records came first.
        if (session.linksLate && !group.session.spawnedBy) group.session = { ...group.session, spawnedBy: session.spawnedBy, linksLate: true };
      }
    }
    return { bySession, unattached };
  }

  /**
   * The session a record that names none belongs to: its agent's one open session (Codex's
   * "flushing OTEL metrics" record carries no conversation id), else none — it is not journaled,
   * never a run of its own (docs/otel.md "Sessions"). Looked up once per agent and payload.
   */
  private async openSessionOf(
    given: SessionRef,
    joined: Map<string, SessionRef | null>,
    planned: ReadonlyMap<string, ExternalSessionRow>,
  ): Promise<SessionRef | null> {
    const parent = given.parent === null ? '' : `${given.parent.runId}\n${given.parent.taskId}\n${given.parent.attempt}`;
    const key = `${given.origin}\n${parent}`;
    if (!joined.has(key)) {
      const open = new Map<string, ExternalSessionRow>();
      for (const row of await this.store.quietExternalSessions(Number.MAX_SAFE_INTEGER)) open.set(row.sessionKey, row);
      // The batch's earlier payloads, as they left their sessions: open or ended, as they will be once journaled.
      for (const [sessionKey, row] of planned) {
        if (row.idle) open.delete(sessionKey);
        else open.set(sessionKey, row);
      }
      const ofAgent = [...open.values()].filter((row) => row.origin === given.origin);
      // The session of the same Hivewatch attempt when the record names one, else the agent's only open session.
      const sameAttempt = ofAgent.filter((row) => given.parent !== null && row.parent !== null && JSON.stringify(row.parent) === JSON.stringify(given.parent));
      const candidates = sameAttempt.length > 0 ? sameAttempt : ofAgent;
      const only = candidates.length === 1 ? candidates[0] : undefined;
      joined.set(key, only ? { ...given, sessionId: only.sessionId, parent: only.parent, adjustments: [], anonymous: false } : null);
    }
    return joined.get(key) ?? null;
  }

  /**
   * Ends every session quiet for `quietMs`, and every session linked to a Hivewatch attempt that
   * ended (LINKED_GRACE_MS after its last telemetry; at once when `final`: the receiver stops, so
   * nothing more can arrive); returns their run ids.
   */
  sweep(options: { final?: boolean } = {}): Promise<string[]> {
    return this.exclusive(() => this.sweepNow(options.final === true));
  }

  private async sweepNow(final: boolean): Promise<string[]> {
    const now = this.now();
    const graceBefore = final ? Number.MAX_SAFE_INTEGER : now - Math.min(this.quietMs, LINKED_GRACE_MS);
    const open = await this.store.quietExternalSessions(graceBefore);
    // A session stopped by a usage limit is not quiet before its reset (session-limit.ts).
    const quiet = (row: ExternalSessionRow): boolean => row.lastEventAt < now - this.quietMs && quietDeadline(row, this.quietMs) < now;
    const withAttempt = (row: ExternalSessionRow): boolean => row.parent !== null && (row.parentEnded ?? null) !== null;
    const due = open.filter((row) => withAttempt(row) || quiet(row));
    if (due.length === 0) return [];
    const rows: ExternalSessionRow[] = [];
    const events: HivewatchEvent[] = [];
    for (const row of due) {
      const plan = planIdle(row, this.quietMs, now, withAttempt(row));
      events.push(...withSeq(row.runId, row.lastSeq, plan.events));
      rows.push({ ...plan.row, lastSeq: row.lastSeq + plan.events.length });
    }
    await this.store.ingestExternal({ digest: null, records: 0, receivedAt: now, sessions: rows }, events);
    return rows.map((r) => r.runId);
  }
}
