import type Database from 'better-sqlite3';

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
 * PostgreSQL's twin: core/store/postgres/migration-14.ts.
 */
export function issueLog(db: Database.Database): void {
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
