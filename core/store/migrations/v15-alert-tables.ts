import type Database from 'better-sqlite3';

/**
 * Version 15: alert rules and their webhook deliveries, shared by every host
 * of a database (core/alerts). A delivery's `(rule_id, subject, occurrence)` is unique: the
 * insert of "this event fires rule R" is idempotent, so hosts that all see the same event
 * enqueue it once. `lease_owner` / `lease_until` are the claim of the host posting it.
 * PostgreSQL's twin is ALERTS_SQL (postgres/schema-sql-alerts.ts), in its types.
 */
export const ALERT_TABLES_SQLITE = `
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

export function alertTables(db: Database.Database): void {
  db.exec(ALERT_TABLES_SQLITE);
}
