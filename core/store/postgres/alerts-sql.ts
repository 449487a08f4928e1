import { ALERT_TABLES_SQLITE } from '../migrations/v15-alert-tables.js';

/**
 * PostgreSQL's twin of SQLite's migration 15 (core/store/migration-15.ts): the same tables in
 * this engine's types (schema-sql.ts's rule: BIGINT for every count and millisecond time) and
 * bytewise text like every text column since version 12. Derived from the SQLite text so the
 * two cannot drift apart; the derivation is checked by the alerts suites on both engines.
 */
export const ALERT_TABLES_POSTGRES = ALERT_TABLES_SQLITE.replace(/\bINTEGER\b/g, 'BIGINT').replace(/\bTEXT\b/g, 'TEXT COLLATE "C"');
