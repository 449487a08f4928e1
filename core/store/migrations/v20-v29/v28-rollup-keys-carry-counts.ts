import type { Migration } from '../migration.js';

/**
 * Version 28 (error rollups read from their key alone): on PostgreSQL the three error rollup
 * tables' primary keys carry `count` as a non-key column (`INCLUDE (count)`), so an error count
 * over a window is an index-only scan of the key's bucket range instead of the key plus a heap
 * visit per row. At 10,000,000 errors the heap visits were most of a count's time
 * (docs/benches.md, "PostgreSQL error counts"). The key's columns, and so its uniqueness and the
 * writer's `ON CONFLICT` target, are unchanged; the key is rebuilt once, here.
 *
 * SQLite's part changes nothing and only moves the version on (one number is one schema on both
 * engines): its rollup tables are WITHOUT ROWID, so the key already is the table and a bucket
 * range is already one read of it.
 */
const ERROR_ROLLUP_TABLES = ['error_rollups', 'error_rollups_hour', 'error_rollups_day'] as const;

function rollupKeysCarryCountsSql(): string[] {
  return ERROR_ROLLUP_TABLES.map(
    (table) => `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD PRIMARY KEY (bucket, category, origin, code, flow, disposition) INCLUDE (count)`,
  );
}

export const migration: Migration = {
  version: 28,
  name: 'error rollups read from their key: the count carried in the primary key',
  sqlite: () => undefined,
  postgres: async (client) => {
    for (const sql of rollupKeysCarryCountsSql()) await client.query(sql);
  },
};
