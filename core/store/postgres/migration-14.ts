/**
 * Version 14 on PostgreSQL: SQLite's `issue_log` (core/store/migration-14.ts) in PostgreSQL's
 * types, bytewise text like every column since version 12, with the same backfill of a `new`
 * row per stored group. BIGSERIAL ids are handed out at insert, not at commit: a reader folds
 * one issue's rows in id order, and two rows of one issue come from statements that each
 * committed before the next was decided (an operator's action, or a system transition keyed by
 * the row it follows), so their ids are in that order.
 */
export const ISSUE_LOG_SQL = `
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
