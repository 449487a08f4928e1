import type Database from 'better-sqlite3';
import { checkpointDeltas, firstSchema, rollupGrainsGroupsAndOwners, wallClockHandledTrendsIndexesSettings } from './migrations-1-4.js';
import { commitOrderAndCommands, hostLeases, otelIngest, retryOfIndex, runCountsAndTextIndex, taskTextIndex } from './migrations-5-11.js';
import { failureModel } from './migration-10.js';
import { alertTables } from './migration-15.js';
import { usageRollups } from './migration-16.js';
import { usageLimitWaits } from './migration-17.js';
import { errorGroupFacts } from './migration-18.js';
import { runsAtScale } from './migration-19.js';
import { groupCounts } from './migration-20.js';
import { runOutcomesAndCost } from './outcomes/migration-21.js';
import { issueFailureRollups } from './migration-22.js';
import { labelFacts } from './migration-23.js';
import { agentSpawns } from './migration-24.js';
import { approvalWaits } from './migration-25.js';
import { alertChannels } from './migration-26.js';
import { attemptTelemetry } from './migration-27.js';
import { issueLog } from './migration-14.js';
import { StoreError } from './store-error.js';

/**
 * The schema's history, one function per version (`PRAGMA user_version` is the number applied).
 * A migration is never edited once released: a change is a new migration at the end. Each runs
 * in its own transaction together with its user_version bump, so a crash leaves the database at
 * the previous version, never between two.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/**
 * Version 12 (one collation on both engines): nothing changes in SQLite. Its
 * text columns already compare as BINARY (bytewise UTF-8, which is code point order); the
 * version exists so one number means one schema on both engines, and PostgreSQL's twin gives its
 * text columns the same order (`COLLATE "C"`, postgres/migrations.ts). docs/decisions/0024-one-query-code-two-engines.md, "One
 * collation on both engines".
 */
function bytewiseCollation(): void {
  // SQLite's BINARY collation is already bytewise.
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'first schema: journal, projections, minute rollups', up: firstSchema },
  { version: 2, name: 'hour/day rollups, error groups, run owners, indexes', up: rollupGrainsGroupsAndOwners },
  { version: 3, name: 'checkpoint deltas', up: checkpointDeltas },
  {
    version: 4,
    name: 'wall-clock times, handled errors, group trends, run list indexes, settings',
    up: wallClockHandledTrendsIndexesSettings,
  },
  { version: 5, name: 'commit order of the journal, cross-process run commands', up: commitOrderAndCommands },
  { version: 6, name: 'index of runs by the run they retry', up: retryOfIndex },
  { version: 7, name: 'run counts per flow and status, trigram text index of runs', up: runCountsAndTextIndex },
  { version: 8, name: 'OpenTelemetry ingest: payload digests, external runs', up: otelIngest },
  { version: 9, name: 'trigram text index of task prompts', up: taskTextIndex },
  { version: 10, name: 'failure model: error dispositions, ending errors, failure rollups', up: failureModel },
  { version: 11, name: 'host leases: heartbeat, machine and process start time of every host', up: hostLeases },
  { version: 12, name: 'bytewise collation of every text column (PostgreSQL; SQLite already is)', up: bytewiseCollation },
  { version: 13, name: "external sessions: the open prompt's attempt and outcome", up: externalPromptState },
  { version: 14, name: 'error issues: the append-only log of their status changes', up: issueLog },
  { version: 15, name: 'alert rules and their webhook deliveries', up: alertTables },
  { version: 16, name: 'tokens and cost: attempt usage, run totals, flow totals per day', up: usageRollups },
  { version: 17, name: 'usage-limit waits: the reset a task and its run wait for', up: usageLimitWaits },
  { version: 18, name: "issue facts kept at commit: each issue's runs, flows and failures", up: errorGroupFacts },
  { version: 19, name: 'runs at scale: run counts per hour, flow and status; flow list sorted by name', up: runsAtScale },
  { version: 20, name: "group counts per hour and day, over every flow and per flow: the sparklines' reads", up: groupCounts },
  { version: 21, name: 'what failure costs and how each flow fares: cost by outcome, runs ended per flow, status and duration', up: runOutcomesAndCost },
  { version: 22, name: "issue failures per hour and day: each issue's failures in a period from rollups", up: issueFailureRollups },
  { version: 23, name: "labels: the steps a run's flow takes, a task's prompt as written", up: labelFacts },
  { version: 24, name: 'agent trees: the run that started each subagent run', up: agentSpawns },
  { version: 25, name: 'waiting on a person: the permission prompt a run waits on, the time it waited', up: approvalWaits },
  { version: 26, name: 'alert channels: a rule delivers to a webhook, the desktop, or both', up: alertChannels },
  { version: 27, name: "telemetry expected from a preset attempt: the origin its CLI's exporter was pointed at the receiver with", up: attemptTelemetry },
];

/**
 * Version 13: what an external session's open prompt has come to, as JSON
 * (core/otel/session-state.ts): the attempt a request opened and nothing ended yet, the prompt's
 * last outcome and the failure that ended it, so the quiet period ends the session with the
 * status its last prompt had. NULL for a session ingested before: nothing known, as before.
 */
function externalPromptState(db: Database.Database): void {
  db.exec('ALTER TABLE external_runs ADD COLUMN prompt_state TEXT');
}

/** The newest version (the last migration's: versions increase but a branch may land after a later one). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration after the database's version, up to `target`. Returns the versions applied. */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): number[] {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError('corrupt', `database schema version ${current} is newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`, {
      code: 'SYSTEM_SCHEMA_TOO_NEW',
    });
  }
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    // The version is read again under the write lock: another process may have migrated meanwhile.
    const ran = db
      .transaction(() => {
        if (schemaVersion(db) >= migration.version) return false;
        migration.up(db);
        db.pragma(`user_version = ${migration.version}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}
