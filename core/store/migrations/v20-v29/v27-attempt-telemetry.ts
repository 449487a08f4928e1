import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 27 (telemetry expected from a preset attempt): `attempts.telemetry_origin`, the origin
 * (`runtime:<agent>`) whose exporter the attempt's CLI was started with, pointed at the receiver
 * (`attemptProcess.telemetry`); NULL when it was not. The telemetry-health read takes a running
 * attempt with it as a source from the attempt's start, so a CLI that never sends is seen
 * (core/store/queries/telemetry-sources.ts). No index: the read starts from the running runs.
 *
 * Not backfilled: attempts journaled before did not say. The PostgreSQL part
 * below adds the same column in its types.
 */
function attemptTelemetrySql(dialect: Dialect): string[] {
  const text = dialect === Dialect.postgres ? 'TEXT COLLATE "C"' : 'TEXT';
  return [`ALTER TABLE attempts ADD COLUMN telemetry_origin ${text}`];
}

function attemptTelemetry(db: Database.Database): void {
  for (const sql of attemptTelemetrySql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 27,
  name: "telemetry expected from a preset attempt: the origin its CLI's exporter was pointed at the receiver with",
  sqlite: attemptTelemetry,
  // On PostgreSQL: the same column.
  postgres: async (client) => {
    for (const sql of attemptTelemetrySql(Dialect.postgres)) await client.query(sql);
  },
};
