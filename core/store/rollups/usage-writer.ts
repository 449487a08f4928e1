import type Database from 'better-sqlite3';
import { runSync } from '../queries/plan.js';
import { StatementCache } from '../queries/sql.js';
import type { UsageBatch } from './usage-rollups.js';

/** SQLite's side of the usage writes (usage-rollups.ts) and the cost rollups after them: each statement prepared once. */
export class SqliteUsageWriter {
  private readonly statements: StatementCache;

  constructor(db: Database.Database) {
    this.statements = new StatementCache(db);
  }

  apply(batch: UsageBatch): void {
    if (batch.size === 0) return;
    runSync(this.statements, batch.costReads());
    for (const write of batch.writes()) this.statements.get(write.sql).run(...write.params);
  }
}
