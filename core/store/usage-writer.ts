import type Database from 'better-sqlite3';
import type { UsageBatch } from './usage-rollups.js';

/** SQLite's side of the usage writes (usage-rollups.ts): the batch's statements, each prepared once. */
export class SqliteUsageWriter {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  apply(batch: UsageBatch): void {
    if (batch.size === 0) return;
    for (const write of batch.writes()) {
      let statement = this.prepared.get(write.sql);
      if (statement === undefined) {
        statement = this.db.prepare(write.sql);
        this.prepared.set(write.sql, statement);
      }
      statement.run(...write.params);
    }
  }
}
