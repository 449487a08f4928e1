import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 15: alert rules and their webhook deliveries, shared by every host
 * of a database (core/alerts). A delivery's `(rule_id, subject, occurrence)` is unique: the
 * insert of "this event fires rule R" is idempotent, so hosts that all see the same event
 * enqueue it once. `lease_owner` / `lease_until` are the claim of the host posting it.
 * PostgreSQL's part is ALERT_TABLES_POSTGRES (below), in its types.
 */
const ALERT_TABLES_SQLITE = `
CREATE TABLE alert_rules (
  id TEXT PRIMARY KEY,
  condition TEXT NOT NULL,
  threshold_ms INTEGER,
  threshold_count INTEGER,
  flow TEXT,
  code TEXT,
  category TEXT,
  webhook TEXT NOT NULL,
  format TEXT NOT NULL,
  throttle_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL
);
CREATE TABLE alert_deliveries (
  id TEXT PRIMARY KEY,
  rule_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  occurrence TEXT NOT NULL,
  throttle_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  refers_to TEXT,
  title TEXT NOT NULL,
  facts TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  response_code INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  sent_at INTEGER,
  lease_owner TEXT,
  lease_until INTEGER,
  UNIQUE (rule_id, subject, occurrence)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);
CREATE INDEX alert_deliveries_throttle ON alert_deliveries (rule_id, throttle_key, created_at);
CREATE INDEX alert_deliveries_created ON alert_deliveries (created_at);
`;

function alertTables(db: Database.Database): void {
  db.exec(ALERT_TABLES_SQLITE);
}

/**
 * PostgreSQL's part of version 15: SQLite's tables above in
 * this engine's types (its baseline's rule, v09: BIGINT for every count and millisecond time) and
 * bytewise text like every text column since version 12. Derived from the SQLite text so the
 * two cannot drift apart; the derivation is checked by the alerts suites on both engines.
 */
const ALERT_TABLES_POSTGRES = ALERT_TABLES_SQLITE.replace(/\bINTEGER\b/g, 'BIGINT').replace(/\bTEXT\b/g, 'TEXT COLLATE "C"');

export const migration: Migration = {
  version: 15,
  name: 'alert rules and their webhook deliveries',
  sqlite: alertTables,
  postgres: async (client) => {
    await client.query(ALERT_TABLES_POSTGRES);
  },
};
