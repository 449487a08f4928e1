import type Database from 'better-sqlite3';
import type { BatchAggregates, GroupDelta } from './batch-aggregates.js';
import { FAILURE_KEY, FAILURE_ROLLUP_TABLE, failureParams, type FailureDeltas } from './failure-rollups.js';
import {
  GRAINS,
  GROUP_TREND_GRAINS,
  GROUP_TREND_TABLE,
  parseGroupTrendKey,
  parseRollupKey,
  ROLLUP_TABLE,
  type BatchRollups,
  type GrainDeltas,
} from './rollups.js';

type Stmt = Database.Statement;

/**
 * SQLite's writes of the aggregates: error rollups, group trends, error groups and failure
 * rollups, each change an upsert that adds to the stored count. The ingest path (a batch's
 * `BatchAggregates`, whose counts a settled occurrence makes negative at its pending key) and
 * prune (`GrainDeltas`, all negative) share the statements; a row a negative change brings to
 * zero is deleted, so the tables never hold empty keys.
 */
export class RollupWriter {
  private readonly upserts: Record<string, Stmt> = {};
  private readonly deleteEmpty: Record<string, Stmt> = {};
  private readonly trendUpserts: Record<string, Stmt> = {};
  private readonly trendDeleteEmpty: Record<string, Stmt> = {};
  private readonly failureUpserts: Record<string, Stmt> = {};
  private readonly failureDeleteEmpty: Record<string, Stmt> = {};
  private readonly upsertGroup: Stmt;

  constructor(db: Database.Database) {
    for (const grain of GRAINS) {
      const table = ROLLUP_TABLE[grain];
      this.upserts[grain] = db.prepare(
        `INSERT INTO ${table} (bucket, category, origin, code, flow, disposition, count) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (bucket, category, origin, code, flow, disposition) DO UPDATE SET count = count + excluded.count`,
      );
      this.deleteEmpty[grain] = db.prepare(
        `DELETE FROM ${table} WHERE bucket = ? AND category = ? AND origin = ? AND code = ? AND flow = ? AND disposition = ? AND count <= 0`,
      );
      const failures = FAILURE_ROLLUP_TABLE[grain];
      this.failureUpserts[grain] = db.prepare(
        `INSERT INTO ${failures} (${FAILURE_KEY.join(', ')}, count) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (${FAILURE_KEY.join(', ')}) DO UPDATE SET count = count + excluded.count`,
      );
      this.failureDeleteEmpty[grain] = db.prepare(`DELETE FROM ${failures} WHERE ${FAILURE_KEY.map((k) => `${k} = ?`).join(' AND ')} AND count <= 0`);
    }
    for (const grain of GROUP_TREND_GRAINS) {
      const table = GROUP_TREND_TABLE[grain];
      this.trendUpserts[grain] = db.prepare(
        `INSERT INTO ${table} (bucket, fingerprint, flow, disposition, count) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (fingerprint, bucket, flow, disposition) DO UPDATE SET count = count + excluded.count`,
      );
      this.trendDeleteEmpty[grain] = db.prepare(`DELETE FROM ${table} WHERE bucket = ? AND fingerprint = ? AND flow = ? AND disposition = ? AND count <= 0`);
    }
    this.upsertGroup = db.prepare(
      `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, unhandled, first_seen, last_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (fingerprint) DO UPDATE SET
         count = count + excluded.count,
         unhandled = unhandled + excluded.unhandled,
         first_seen = MIN(first_seen, excluded.first_seen),
         last_message = CASE WHEN excluded.last_seen >= last_seen THEN excluded.last_message ELSE last_message END,
         last_seen = MAX(last_seen, excluded.last_seen)`,
    );
  }

  /** One batch's changes: one upsert per key, grain and table. */
  applyAggregates(batch: BatchAggregates): void {
    if (batch.rollups.size > 0) this.applyBatch(batch.rollups);
    for (const g of batch.groups.values()) this.applyGroup(g);
    if (batch.failures.size > 0) this.applyFailures(batch.failures);
  }

  private applyGroup(g: GroupDelta): void {
    this.upsertGroup.run(g.fingerprint, g.category, g.code, g.origin, g.template, g.lastMessage, g.count, g.unhandled, g.firstSeen, g.lastSeen);
  }

  private applyBatch(batch: BatchRollups): void {
    for (const grain of GRAINS) {
      const upsert = this.upserts[grain] as Stmt;
      const cleanup = this.deleteEmpty[grain] as Stmt;
      for (const e of batch.entries(grain)) {
        if (e.count === 0) continue;
        upsert.run(e.bucket, e.category, e.origin, e.code, e.flow, e.disposition, e.count);
        if (e.count < 0) cleanup.run(e.bucket, e.category, e.origin, e.code, e.flow, e.disposition);
      }
    }
    for (const grain of GROUP_TREND_GRAINS) {
      const upsert = this.trendUpserts[grain] as Stmt;
      const cleanup = this.trendDeleteEmpty[grain] as Stmt;
      for (const e of batch.trends(grain)) {
        if (e.count === 0) continue;
        upsert.run(e.bucket, e.fingerprint, e.flow, e.disposition, e.count);
        if (e.count < 0) cleanup.run(e.bucket, e.fingerprint, e.flow, e.disposition);
      }
    }
  }

  /** Failure-rollup changes (+1 a run that ended failed, -1 a pruned one). */
  applyFailures(deltas: FailureDeltas): void {
    for (const grain of GRAINS) {
      const upsert = this.failureUpserts[grain] as Stmt;
      const cleanup = this.failureDeleteEmpty[grain] as Stmt;
      for (const e of deltas.entries(grain)) {
        const params = failureParams(e);
        upsert.run(params);
        if (e.count < 0) cleanup.run(params.slice(0, FAILURE_KEY.length));
      }
    }
  }

  /** Signed deltas of every grain and trend (prune subtracts what it deletes). */
  apply(deltas: GrainDeltas): void {
    for (const grain of GRAINS) {
      const upsert = this.upserts[grain] as Stmt;
      const cleanup = this.deleteEmpty[grain] as Stmt;
      for (const [text, delta] of deltas[grain]) {
        if (delta === 0) continue;
        const k = parseRollupKey(text);
        upsert.run(k.bucket, k.category, k.origin, k.code, k.flow, k.disposition, delta);
        if (delta < 0) cleanup.run(k.bucket, k.category, k.origin, k.code, k.flow, k.disposition);
      }
    }
    for (const grain of GROUP_TREND_GRAINS) {
      const upsert = this.trendUpserts[grain] as Stmt;
      const cleanup = this.trendDeleteEmpty[grain] as Stmt;
      for (const [text, delta] of grain === 'hour' ? deltas.trendHour : deltas.trendDay) {
        if (delta === 0) continue;
        const k = parseGroupTrendKey(text);
        upsert.run(k.bucket, k.fingerprint, k.flow, k.disposition, delta);
        if (delta < 0) cleanup.run(k.bucket, k.fingerprint, k.flow, k.disposition);
      }
    }
  }
}
