import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 24 (agent trees): which run started which. `agent_spawns` holds one row per subagent
 * run (an external run whose runStarted names `external.spawnedBy`, core/otel/subagents.ts): its
 * parent run, the subagent's id and kind as the CLI named them. The parent run may not exist yet
 * (a subagent's telemetry can arrive before its parent's), so there is no foreign key; the tree
 * reads (agent-tree.ts) join what exists.
 *
 * Not backfilled: runs journaled before were flat sessions. The PostgreSQL part
 * below makes the same table in its types, text bytewise).
 */
function agentSpawnsSql(dialect: Dialect): string[] {
  // PostgreSQL's text columns compare bytewise as SQLite's do (migration 12).
  const text = dialect === Dialect.postgres ? 'TEXT COLLATE "C"' : 'TEXT';
  return [
    `CREATE TABLE agent_spawns (
      run_id ${text} PRIMARY KEY,
      parent_run_id ${text} NOT NULL,
      agent_id ${text} NOT NULL,
      agent_name ${text}
    )`,
    'CREATE INDEX agent_spawns_parent ON agent_spawns (parent_run_id, run_id)',
  ];
}

function agentSpawns(db: Database.Database): void {
  for (const sql of agentSpawnsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 24,
  name: 'agent trees: the run that started each subagent run',
  sqlite: agentSpawns,
  // On PostgreSQL: the same table.
  postgres: async (client) => {
    for (const sql of agentSpawnsSql(Dialect.postgres)) await client.query(sql);
  },
};
