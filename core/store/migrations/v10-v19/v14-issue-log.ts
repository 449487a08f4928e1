import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 14: error issues. `issue_log` is an append-only journal of every
 * status change of an issue (an error group, by fingerprint): an operator's resolve / ignore /
 * reopen from the CLI or the window, and the transitions the system notices (new, regressed,
 * escalating, an ignore that lapsed). An issue's status is the fold of its rows in id order
 * (core/store/issues/issue-state.ts), so it replays after a restart and every host of a shared database
 * reads the same one. `dedupe_key` is unique: a system transition is keyed by the issue, the
 * transition and the row it follows, so two hosts noticing it both insert and one row lands.
 *
 * Every group stored before this version gets its `new` row now (by `system`, at its first
 * occurrence): `new` means a fingerprint never seen before, and history is not news.
 * PostgreSQL's part: ISSUE_LOG_SQL below.
 */
function issueLog(db: Database.Database): void {
  db.exec(`
    CREATE TABLE issue_log (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      fingerprint TEXT NOT NULL,
      kind TEXT NOT NULL,
      from_status TEXT,
      to_status TEXT NOT NULL,
      actor TEXT NOT NULL,
      host TEXT NOT NULL,
      at INTEGER NOT NULL,
      reason TEXT,
      ignore_until INTEGER,
      ignore_count INTEGER,
      ignore_escalating INTEGER NOT NULL DEFAULT 0,
      cause TEXT,
      dedupe_key TEXT NOT NULL UNIQUE
    );
    CREATE INDEX issue_log_by_fingerprint ON issue_log (fingerprint, id);
    INSERT INTO issue_log (fingerprint, kind, from_status, to_status, actor, host, at, reason, dedupe_key)
      SELECT fingerprint, 'new', NULL, 'unresolved', 'system', 'migration-14', first_seen, 'stored before issues existed', fingerprint || ':new'
      FROM error_groups ORDER BY first_seen, fingerprint;
  `);
}

/**
 * Version 14 on PostgreSQL: SQLite's `issue_log` (above) in PostgreSQL's
 * types, bytewise text like every column since version 12, with the same backfill of a `new`
 * row per stored group. BIGSERIAL ids are handed out at insert, not at commit: a reader folds
 * one issue's rows in id order, and two rows of one issue come from statements that each
 * committed before the next was decided (an operator's action, or a system transition keyed by
 * the row it follows), so their ids are in that order.
 */
const ISSUE_LOG_SQL = `
  CREATE TABLE issue_log (
    id BIGSERIAL PRIMARY KEY,
    fingerprint TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    from_status TEXT COLLATE "C",
    to_status TEXT COLLATE "C" NOT NULL,
    actor TEXT COLLATE "C" NOT NULL,
    host TEXT COLLATE "C" NOT NULL,
    at BIGINT NOT NULL,
    reason TEXT COLLATE "C",
    ignore_until BIGINT,
    ignore_count BIGINT,
    ignore_escalating INTEGER NOT NULL DEFAULT 0,
    cause TEXT COLLATE "C",
    dedupe_key TEXT COLLATE "C" NOT NULL UNIQUE
  );
  CREATE INDEX issue_log_by_fingerprint ON issue_log (fingerprint, id);
  INSERT INTO issue_log (fingerprint, kind, from_status, to_status, actor, host, at, reason, dedupe_key)
    SELECT fingerprint, 'new', NULL, 'unresolved', 'system', 'migration-14', first_seen, 'stored before issues existed', fingerprint || ':new'
    FROM error_groups ORDER BY first_seen, fingerprint;
`;

export const migration: Migration = {
  version: 14,
  name: 'error issues: the append-only log of their status changes',
  sqlite: issueLog,
  postgres: async (client) => {
    await client.query(ISSUE_LOG_SQL);
  },
};
