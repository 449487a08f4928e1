import type { HivewatchEvent } from '../base/events.js';
import type { ExternalSessionRow } from '../store/external.js';
import type { HivewatchStore } from '../store/contract.js';
import type { TelemetryRecord } from './decode.js';
import { sessionKeyOf, sessionOf, type SessionRef } from './mapping.js';
import { newSessionRow, planIdle, planSession, type PlannedEvent } from './session-events.js';

/**
 * Journals decoded telemetry: one payload = one `store.ingestExternal` = one transaction (its
 * digest, the sessions' bookkeeping and every event, through the store's `appendEvents`), so a
 * payload counts whole or not at all, and an exporter's retry of it counts once.
 */

/** A session that sends nothing for this long ends (docs/decisions.md: the CLIs send no session end). */
export const DEFAULT_QUIET_MS = 10 * 60_000;
/** The setting that lets prompt text into the journal: `hivewatch` stores it only when this is `on`. */
export const STORE_PROMPTS_SETTING = 'otel.store_prompts';

export interface IngesterOptions {
  /** Wall clock (ms). Default Date.now. */
  now?: () => number;
  quietMs?: number;
}

export interface IngestResult {
  records: number;
  /** The payload was ingested before: nothing was written. */
  duplicate: boolean;
  /** The external runs the payload touched. */
  runIds: string[];
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
  ingest(records: readonly TelemetryRecord[], digest: string | null): Promise<IngestResult> {
    return this.exclusive(() => this.ingestNow(records, digest));
  }

  private async ingestNow(records: readonly TelemetryRecord[], digest: string | null): Promise<IngestResult> {
    const receivedAt = this.now();
    const storePrompts = (await this.store.getSetting(STORE_PROMPTS_SETTING)) === 'on';
    const bySession = new Map<string, { session: SessionRef; records: TelemetryRecord[] }>();
    for (const record of records) {
      const session = sessionOf(record);
      const key = sessionKeyOf(session);
      const group = bySession.get(key);
      if (group) group.records.push(record);
      else bySession.set(key, { session, records: [record] });
    }
    const rows: ExternalSessionRow[] = [];
    const events: HivewatchEvent[] = [];
    for (const [key, { session, records: own }] of bySession) {
      const before = (await this.store.externalSession(key)) ?? newSessionRow(session, receivedAt);
      const plan = planSession(session, before, own, { storePrompts, receivedAt });
      events.push(...withSeq(before.runId, before.lastSeq, plan.events));
      rows.push({ ...plan.row, lastSeq: before.lastSeq + plan.events.length });
    }
    const fresh = await this.store.ingestExternal({ digest, records: records.length, receivedAt, sessions: rows }, events);
    return { records: records.length, duplicate: !fresh, runIds: rows.map((r) => r.runId) };
  }

  /** Ends every session quiet for `quietMs` (status completed); returns their run ids. */
  sweep(): Promise<string[]> {
    return this.exclusive(() => this.sweepNow());
  }

  private async sweepNow(): Promise<string[]> {
    const now = this.now();
    const quiet = await this.store.quietExternalSessions(now - this.quietMs);
    if (quiet.length === 0) return [];
    const rows: ExternalSessionRow[] = [];
    const events: HivewatchEvent[] = [];
    for (const row of quiet) {
      const plan = planIdle(row, this.quietMs, now);
      events.push(...withSeq(row.runId, row.lastSeq, plan.events));
      rows.push({ ...plan.row, lastSeq: row.lastSeq + plan.events.length });
    }
    await this.store.ingestExternal({ digest: null, records: 0, receivedAt: now, sessions: rows }, events);
    return rows.map((r) => r.runId);
  }
}
