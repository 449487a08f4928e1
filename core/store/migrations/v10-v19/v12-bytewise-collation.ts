import type pg from 'pg';
import type { Migration } from '../migration.js';

/**
 * Version 12 (one collation on both engines): nothing changes in SQLite. Its
 * text columns already compare as BINARY (bytewise UTF-8, which is code point order); the
 * version exists so one number means one schema on both engines, and PostgreSQL's part gives its
 * text columns the same order (`COLLATE "C"`, below). docs/decisions/0024-one-query-code-two-engines.md, "One
 * collation on both engines".
 */
function bytewiseCollation(): void {
  // SQLite's BINARY collation is already bytewise.
}

/**
 * Every text column of the schema gets `COLLATE "C"`: bytes of UTF-8, i.e. code point order,
 * exactly SQLite's BINARY. The column collation (not a COLLATE in each query) keeps every index
 * usable by the queries' ORDER BY, keyset cursors and ILIKE, whatever the database's locale.
 * Rewrites each table once (one ALTER TABLE naming all its text columns; dependent indexes and
 * foreign keys are rebuilt with it).
 */
async function bytewiseTextColumns(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns AS c
       JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'text'
        AND c.table_name <> 'schema_version'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const row of rows) byTable.set(row.table_name, [...(byTable.get(row.table_name) ?? []), row.column_name]);
  // The run_counts update trigger's WHEN names runs.flow and runs.status, which PostgreSQL
  // refuses to retype under it: dropped and created again as the baseline wrote it.
  await client.query('DROP TRIGGER run_counts_update ON runs');
  for (const [table, columns] of byTable) {
    const changes = columns.map((column) => `ALTER COLUMN ${quoteIdentifier(column)} TYPE TEXT COLLATE "C"`).join(', ');
    await client.query(`ALTER TABLE ${quoteIdentifier(table)} ${changes}`);
  }
  await client.query(`CREATE TRIGGER run_counts_update AFTER UPDATE OF flow, status ON runs FOR EACH ROW
    WHEN (OLD.flow IS DISTINCT FROM NEW.flow OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION hivewatch_run_counts()`);
}

/** Names come from the catalog, quoted anyway. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export const migration: Migration = {
  version: 12,
  name: 'bytewise collation of every text column (PostgreSQL; SQLite already is)',
  postgresName: 'bytewise collation of every text column, as SQLite compares',
  sqlite: bytewiseCollation,
  // SQLite compares text as BINARY; a database's default collation (en_US, ICU, ...) would sort
  // flows, groups and cursors differently and fold more than ASCII in ILIKE.
  postgres: bytewiseTextColumns,
};
