import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 26 (alert channels): a rule delivers to a webhook, to the desktop, or both.
 * `alert_rules.webhook` becomes optional and `alert_rules.desktop` (0 or 1) says whether every
 * Hivewatch window shows the rule's firings as a desktop notification
 * (core/service/alerts/desktop-feed.ts); a CHECK keeps at least one channel. Rules stored before
 * keep their webhook and get `desktop = 0`: they deliver exactly as before.
 *
 * SQLite cannot drop a NOT NULL in place, so its table is rebuilt (it holds a handful of rules;
 * no index, trigger or foreign key names it). The PostgreSQL part (below)
 * alters the column in place: the same schema in its types.
 */
const CHANNEL_CHECK = 'CHECK (webhook IS NOT NULL OR desktop = 1)';

function alertChannelsSql(dialect: Dialect): string[] {
  if (dialect === Dialect.postgres) {
    return [
      `ALTER TABLE alert_rules ALTER COLUMN webhook DROP NOT NULL, ADD COLUMN desktop INTEGER NOT NULL DEFAULT 0,
        ADD CONSTRAINT alert_rules_channel ${CHANNEL_CHECK}`,
    ];
  }
  return [
    `CREATE TABLE alert_rules_channels (
      id TEXT PRIMARY KEY,
      condition TEXT NOT NULL,
      threshold_ms INTEGER,
      threshold_count INTEGER,
      flow TEXT,
      code TEXT,
      category TEXT,
      webhook TEXT,
      format TEXT NOT NULL,
      throttle_ms INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      created_by TEXT NOT NULL,
      desktop INTEGER NOT NULL DEFAULT 0,
      ${CHANNEL_CHECK}
    )`,
    `INSERT INTO alert_rules_channels (id, condition, threshold_ms, threshold_count, flow, code, category, webhook, format, throttle_ms, created_at, created_by)
      SELECT id, condition, threshold_ms, threshold_count, flow, code, category, webhook, format, throttle_ms, created_at, created_by FROM alert_rules`,
    'DROP TABLE alert_rules',
    'ALTER TABLE alert_rules_channels RENAME TO alert_rules',
  ];
}

function alertChannels(db: Database.Database): void {
  for (const sql of alertChannelsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 26,
  name: 'alert channels: a rule delivers to a webhook, the desktop, or both',
  sqlite: alertChannels,
  // On PostgreSQL: the same columns and check, altered in place.
  postgres: async (client) => {
    for (const sql of alertChannelsSql(Dialect.postgres)) await client.query(sql);
  },
};
