import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 13: what an external session's open prompt has come to, as JSON
 * (core/otel/session/session-state.ts): the attempt a request opened and nothing ended yet, the prompt's
 * last outcome and the failure that ended it, so the quiet period ends the session with the
 * status its last prompt had. NULL for a session ingested before: nothing known, as before.
 */
function externalPromptState(db: Database.Database): void {
  db.exec('ALTER TABLE external_runs ADD COLUMN prompt_state TEXT');
}

export const migration: Migration = {
  version: 13,
  name: "external sessions: the open prompt's attempt and outcome",
  sqlite: externalPromptState,
  // Bytewise like every text column since version 12.
  postgres: async (client) => {
    await client.query('ALTER TABLE external_runs ADD COLUMN prompt_state TEXT COLLATE "C"');
  },
};
