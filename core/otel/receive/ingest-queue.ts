import type { TelemetryRecord } from './decode.js';
import type { OtelIngester } from './ingest.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';

/**
 * The queue between decoding and the store (docs/otel.md "Backpressure"). It keeps the receiver's
 * promise to an exporter: every request is answered within `answerWithinMs` — 200 once its
 * payload is journaled, 429 at once when the queue is full (in records or in bytes), 503 when its
 * payload was not journaled in time. An exporter retries both (the OTLP/HTTP spec's throttling);
 * a retry of a payload whose transaction went on after its 503 is recognised by its digest and
 * counts once, so nothing is lost and nothing counted twice.
 */

/** Decoded records waiting for their transaction, at most: about a second of writes on SQLite. */
const MAX_QUEUED_RECORDS = 10_000;
/** Decompressed payload bytes waiting, at most (four payloads of the 8 MiB body limit). */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/**
 * A request is answered within this, journaled or not: OTLP exporters give up on a request after
 * 10 s by default, and a request held open holds its exporter's connection and its batch.
 */
const ANSWER_WITHIN_MS = 900;
/**
 * The Retry-After of both refusals, in seconds: the queue holds about a second of writes, so a
 * second frees room; exporters give an export about 10 s in all, so one second leaves them several
 * tries before they drop the batch.
 */
const RETRY_AFTER_SECONDS = 1;
/** Records journaled in one transaction at most (several payloads: the group commit of drainOne). */
const MAX_GROUP_RECORDS = 5_000;
/** How long one group's transaction may take, at the writer's recent pace (drainOne). */
const GROUP_WITHIN_MS = 40;

/** The answer for a payload the queue did not journal: 429 (full) or 503 (not journaled in time). */
export class IngestBusy extends HivewatchError {
  readonly retryAfterSeconds = RETRY_AFTER_SECONDS;
  constructor(
    readonly status: 429 | 503,
    message: string,
  ) {
    // Full is the queue's bound (a policy); not journaled in time is the writer falling behind.
    super(status === 429 ? 'POLICY_INGEST_BUSY' : 'SYSTEM_INGEST_SLOW', { message });
    this.name = 'IngestBusy';
  }
}

export interface IngestQueueOptions {
  maxRecords?: number;
  maxBytes?: number;
  answerWithinMs?: number;
  /** Records in one group's transaction at most (default MAX_GROUP_RECORDS); 1: one payload a transaction. */
  maxGroupRecords?: number;
  /** A group's transaction takes about this long at the writer's recent pace (default GROUP_WITHIN_MS). */
  groupWithinMs?: number;
  /** Awaited before each payload's transaction: tests hold or slow the writer with it. */
  beforeWrite?: () => Promise<void>;
}

interface Entry {
  records: TelemetryRecord[];
  bytes: number;
  digest: string;
  settled: boolean;
  timer: NodeJS.Timeout | null;
  settle: (error: IngestBusy | Error | null) => void;
}

export class IngestQueue {
  private readonly waiting: Entry[] = [];
  private queuedRecords = 0;
  private queuedBytes = 0;
  private draining = false;
  private readonly maxRecords: number;
  private readonly maxBytes: number;
  private readonly answerWithinMs: number;
  private readonly maxGroupRecords: number;
  private readonly groupWithinMs: number;
  private readonly pace = new WritePace();

  constructor(
    private readonly ingester: OtelIngester,
    private readonly options: IngestQueueOptions = {},
  ) {
    this.maxRecords = options.maxRecords ?? MAX_QUEUED_RECORDS;
    this.maxBytes = options.maxBytes ?? MAX_QUEUED_BYTES;
    this.answerWithinMs = options.answerWithinMs ?? ANSWER_WITHIN_MS;
    this.maxGroupRecords = options.maxGroupRecords ?? MAX_GROUP_RECORDS;
    this.groupWithinMs = options.groupWithinMs ?? GROUP_WITHIN_MS;
  }

  /** What waits for its transaction now (the payload being written is not counted). */
  get queued(): { records: number; bytes: number } {
    return { records: this.queuedRecords, bytes: this.queuedBytes };
  }

  /**
   * Resolves once the payload is journaled; rejects with IngestBusy 429 at once when it does not
   * fit, with 503 when it is not journaled within `answerWithinMs`. An empty queue takes any one
   * payload (the body limit bounds it), so a large payload is never refused for ever.
   */
  enqueue(records: TelemetryRecord[], bytes: number, digest: string): Promise<void> {
    const empty = this.waiting.length === 0;
    if (!empty && this.queuedRecords + records.length > this.maxRecords) {
      return Promise.reject(new IngestBusy(429, `ingest is busy: ${this.queuedRecords} records are waiting (at most ${this.maxRecords}); retry later`));
    }
    if (!empty && this.queuedBytes + bytes > this.maxBytes) {
      return Promise.reject(new IngestBusy(429, `ingest is busy: ${this.queuedBytes} bytes are waiting (at most ${this.maxBytes}); retry later`));
    }
    return new Promise<void>((resolve, reject) => {
      const entry: Entry = {
        records,
        bytes,
        digest,
        settled: false,
        timer: null,
        settle: (error) => {
          if (entry.settled) return;
          entry.settled = true;
          if (entry.timer) clearTimeout(entry.timer);
          if (error === null) resolve();
          else reject(error);
        },
      };
      entry.timer = setTimeout(() => this.late(entry), this.answerWithinMs);
      this.waiting.push(entry);
      this.queuedRecords += records.length;
      this.queuedBytes += bytes;
      if (!this.draining) {
        this.draining = true;
        // A turn later: payloads that arrive meanwhile join this one's transaction.
        setImmediate(() => void this.drainOne());
      }
    });
  }

  /**
   * The payload was not journaled in time: a waiting one leaves the queue (it was never written),
   * one whose transaction runs is answered now and its transaction goes on (its retry is a
   * duplicate then, or is written if that transaction failed).
   */
  private late(entry: Entry): void {
    const at = this.waiting.indexOf(entry);
    if (at >= 0) {
      this.waiting.splice(at, 1);
      this.forget(entry);
    }
    entry.settle(
      new IngestBusy(
        503,
        `ingest is behind: the payload was not journaled within ${this.answerWithinMs} ms (the database is slow or unavailable); retry later`,
      ),
    );
  }

  private forget(entry: Entry): void {
    this.queuedRecords -= entry.records.length;
    this.queuedBytes -= entry.bytes;
  }

  /**
   * The payloads waiting, as one transaction (group commit): one commit and one write of each
   * session's rows for them all instead of one per payload. Bounded so that the transaction stays
   * short — the window's API requests are answered between two, on the same event loop — at
   * `maxGroupRecords`, or fewer when the last transactions took long per record (a slow disk or
   * a busy machine): about `groupWithinMs` of writing. A payload larger than the bound goes alone.
   */
  private async drainOne(): Promise<void> {
    const group = this.nextGroup();
    if (group.length === 0) {
      this.draining = false;
      return;
    }
    const records = group.reduce((n, entry) => n + entry.records.length, 0);
    let started = performance.now();
    try {
      if (this.options.beforeWrite) await this.options.beforeWrite();
      started = performance.now();
      const outcomes = await this.ingester.ingestMany(group.map((entry) => ({ records: entry.records, digest: entry.digest })));
      group.forEach((entry, at) => {
        const outcome = outcomes[at];
        entry.settle(outcome?.status === 'fulfilled' ? null : ((outcome?.reason as Error | undefined) ?? new Error('the payload had no outcome')));
      });
    } catch (error) {
      for (const entry of group) entry.settle(error as Error);
    }
    this.pace.observe(records, performance.now() - started);
    setImmediate(() => void this.drainOne());
  }

  private nextGroup(): Entry[] {
    const budget = this.pace.recordsWithin(this.groupWithinMs, this.maxGroupRecords);
    const group: Entry[] = [];
    let records = 0;
    for (let next = this.waiting[0]; next !== undefined; next = this.waiting[0]) {
      if (group.length > 0 && records + next.records.length > budget) break;
      this.waiting.shift();
      this.forget(next);
      group.push(next);
      records += next.records.length;
    }
    return group;
  }
}

/**
 * How long the writer takes per record, from its recent transactions (an exponentially weighted
 * mean): the group bound follows the machine instead of a fixed guess.
 */
class WritePace {
  private msPerRecord: number | null = null;

  observe(records: number, ms: number): void {
    if (records === 0) return;
    const sample = ms / records;
    this.msPerRecord = this.msPerRecord === null ? sample : 0.7 * this.msPerRecord + 0.3 * sample;
  }

  /** Records that fit in `ms` at the recent pace, at most `max` (all of `max` before anything was measured: one payload). */
  recordsWithin(ms: number, max: number): number {
    if (this.msPerRecord === null) return 0;
    return Math.min(max, Math.floor(ms / Math.max(this.msPerRecord, 1e-6)));
  }
}
