import type Database from 'better-sqlite3';
import type pg from 'pg';
import { openDatabase } from '../../core/store/sqlite/database.js';
import { createPostgresPool, postgresConfig } from '../../core/store/postgres/connection/connection.js';
import { migratePostgres } from '../../core/store/postgres/migrate.js';
import { writeRows } from '../../core/store/postgres/writer/multi-row.js';
import { rawDatabase, removeDb } from '../store/store-baseline.js';

/**
 * The ingest bench's baseline (bench/otel/otel.bench.ts): every row the ingest left in its database,
 * table by table, inserted again into a fresh database of the same schema with nothing but plain
 * INSERTs — no triggers (their rows are copied as rows) and no foreign-key checks — in as many
 * transactions as the exporter sent payloads, each a share of every table. What the database
 * itself needs to store those rows, against which the receiver's whole path is judged. The rows
 * are read before the clock starts.
 */

export interface RawCopy {
  ms: number;
  rows: number;
}

interface TableRows {
  table: string;
  columns: string[];
  rows: unknown[][];
}

/** Each table's rows in `shares` even parts, `[share][table]`: row `i` of `n` goes to share ⌊i·shares/n⌋. */
function split(tables: readonly TableRows[], shares: number): unknown[][][][] {
  const out = Array.from({ length: shares }, () => tables.map((): unknown[][] => []));
  tables.forEach(({ rows }, table) => rows.forEach((row, i) => out[Math.floor((i * shares) / rows.length)]![table]!.push(row)));
  return out;
}

/** The shadow tables of an FTS5 table `name` (SQLite refuses writes to them: the rows go in through the table itself). */
const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];

function sqliteTables(db: Database.Database): TableRows[] {
  const tables = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  const shadows = new Set(virtual.flatMap((name) => FTS5_SHADOWS.map((suffix) => `${name}_${suffix}`)));
  return tables
    .filter((t) => !shadows.has(t.name))
    .map((t) => {
      const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all(t.name) as { name: string }[]).map((c) => c.name);
      // A full-text table is copied with its rowids (its rows' links to the runs and tasks they index).
      if (virtual.includes(t.name))
        return { table: t.name, columns: ['rowid', ...columns], rows: db.prepare(`SELECT rowid, * FROM "${t.name}"`).raw().all() as unknown[][] };
      return { table: t.name, columns, rows: db.prepare(`SELECT * FROM "${t.name}"`).raw().all() as unknown[][] };
    })
    .filter((t) => t.rows.length > 0);
}

/** SQLite: one prepared INSERT per row (faster here than multi-row statements), in `transactions` transactions. */
export function rawSqliteCopy(fromPath: string, toPath: string, transactions: number): RawCopy {
  const source = openDatabase({ path: fromPath, readonly: true });
  let tables: TableRows[];
  try {
    tables = sqliteTables(source);
  } finally {
    source.close();
  }
  const db = rawDatabase(toPath);
  try {
    for (const { name } of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'").all() as { name: string }[]) db.exec(`DROP TRIGGER "${name}"`);
    db.pragma('foreign_keys = OFF');
    // OR REPLACE: the migration's own rows (the journal head, the full-text indexes' settings) are in the fresh file already.
    const statements = tables.map(({ table, columns }) =>
      db.prepare(`INSERT OR REPLACE INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`),
    );
    const shares = split(tables, transactions);
    const write = db.transaction((share: unknown[][][]) => {
      share.forEach((rows, table) => {
        const statement = statements[table] as Database.Statement;
        for (const row of rows) statement.run(row);
      });
    });
    const start = performance.now();
    for (const share of shares) write.immediate(share);
    return { ms: performance.now() - start, rows: tables.reduce((n, t) => n + t.rows.length, 0) };
  } finally {
    db.close();
    removeDb(toPath);
  }
}

async function postgresTables(pool: pg.Pool): Promise<TableRows[]> {
  const { rows: names } = await pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const tables: TableRows[] = [];
  for (const { table_name: table } of names) {
    const { rows, fields } = await pool.query<unknown[]>({ text: `SELECT * FROM "${table}"`, rowMode: 'array' });
    if (rows.length > 0) tables.push({ table, columns: fields.map((f) => f.name), rows });
  }
  return tables;
}

/**
 * PostgreSQL: multi-row INSERTs (the writer's own multi-row.ts), triggers and foreign-key checks
 * off for the session (`session_replication_role = replica`), into `toUrl`'s fresh database.
 */
export async function rawPostgresCopy(fromUrl: string, toUrl: string, transactions: number): Promise<RawCopy> {
  const from = createPostgresPool(postgresConfig(fromUrl, {}), { max: 1 });
  const to = createPostgresPool(postgresConfig(toUrl, {}), { max: 1 });
  try {
    const tables = await postgresTables(from);
    await migratePostgres(to);
    const client = await to.connect();
    try {
      await client.query('SET session_replication_role = replica');
      const shapes = tables.map(({ table, columns }) => ({
        head: `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')})`,
        tail: 'ON CONFLICT DO NOTHING',
        width: columns.length,
      }));
      const shares = split(tables, transactions);
      const start = performance.now();
      for (const share of shares) {
        await client.query('BEGIN');
        for (let table = 0; table < share.length; table += 1) {
          const rows = share[table] as unknown[][];
          if (rows.length > 0) await writeRows(client, shapes[table]!, rows);
        }
        await client.query('COMMIT');
      }
      return { ms: performance.now() - start, rows: tables.reduce((n, t) => n + t.rows.length, 0) };
    } finally {
      client.release();
    }
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
}
