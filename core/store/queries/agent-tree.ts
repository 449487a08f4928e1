import type { HivewatchEvent } from '../../base/events.js';
import { spawnOf } from '../../common/run-fields.js';
import { all, type Dialect, type Query } from './plan.js';

/**
 * Agent trees (migration 24): a session's run and the runs of the subagents it started, nested
 * to any depth, read from `agent_spawns` (written from runStarted's `external.spawnedBy` in the
 * batch that journals it, for both engines). Telemetry is untrusted, so a tree is read at most
 * MAX_TREE_DEPTH levels up and down, and a run met twice (a cycle of spawns) is kept once.
 */

/** Claude Code nests subagents at most 3 deep; anything past this is a cycle or hostile telemetry. */
export const MAX_TREE_DEPTH = 16;

/** One run of a tree: `parentRunId` null for the root (the session the operator opened the tree from, walked up). */
export interface AgentTreeRow {
  runId: string;
  parentRunId: string | null;
  agentId: string | null;
  agentName: string | null;
  depth: number;
  /** Null when the run is named by a subagent but none of its own telemetry arrived yet. */
  run: { flowName: string; status: string; startedAt: number; endedAt: number | null; attemptCount: number; errorCount: number } | null;
}

/** A run's link up to the run that started it. */
export interface AgentSpawnLink {
  runId: string;
  parentRunId: string;
}

const INSERT_SPAWN = `INSERT INTO agent_spawns (run_id, parent_run_id, agent_id, agent_name) VALUES (?, ?, ?, ?)
  ON CONFLICT (run_id) DO NOTHING`;

/**
 * The write that records a subagent run's parent (the shared rule, core/common/run-fields.ts
 * `spawnOf`, which the window's live rows apply too); null for an event that names none. The
 * first parent named stays: a run has one.
 */
export function spawnWriteOf(event: HivewatchEvent): { sql: string; params: unknown[] } | null {
  const s = spawnOf(event);
  if (!s) return null;
  return { sql: INSERT_SPAWN, params: [event.runId, s.runId, s.agentId, s.agentName] };
}

/** Prune: the pruned runs' links go with them (a pruned parent leaves its children roots). */
export function pruneSpawnsSql(inPruned: string): string {
  return `DELETE FROM agent_spawns WHERE ${inPruned}`;
}

type TreeSqlRow = {
  run_id: string;
  parent_run_id: string | null;
  agent_id: string | null;
  agent_name: string | null;
  depth: number | string;
  flow_name: string | null;
  status: string | null;
  started_at: number | string | null;
  ended_at: number | string | null;
  attempt_count: number | string | null;
  error_count: number | string | null;
};

/** A text parameter in the collation of the schema's text columns (PostgreSQL's are bytewise, migration 12). */
const textOf = (dialect: Dialect, value: string): string => (dialect === 'postgres' ? `CAST(${value} AS TEXT) COLLATE "C"` : `CAST(${value} AS TEXT)`);

const upSql = (d: Dialect): string => `WITH RECURSIVE up (run_id, n) AS (
    SELECT ${textOf(d, '?')}, 0
    UNION ALL
    SELECT s.parent_run_id, up.n + 1 FROM agent_spawns AS s JOIN up ON s.run_id = up.run_id WHERE up.n < ${MAX_TREE_DEPTH}
  )
  SELECT run_id, n FROM up`;

const downSql = (d: Dialect): string => `WITH RECURSIVE down (run_id, parent_run_id, agent_id, agent_name, depth) AS (
    SELECT ${textOf(d, '?')}, ${textOf(d, 'NULL')}, ${textOf(d, 'NULL')}, ${textOf(d, 'NULL')}, 0
    UNION ALL
    SELECT s.run_id, s.parent_run_id, s.agent_id, s.agent_name, down.depth + 1
      FROM agent_spawns AS s JOIN down ON s.parent_run_id = down.run_id WHERE down.depth < ${MAX_TREE_DEPTH}
  )
  SELECT down.run_id, down.parent_run_id, down.agent_id, down.agent_name, down.depth,
         r.flow_name, r.status, r.started_at, r.ended_at, r.attempt_count, r.error_count
    FROM down LEFT JOIN runs AS r ON r.id = down.run_id
   ORDER BY down.depth, r.started_at, down.run_id`;

const n = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * The tree `runId` belongs to, from its root (the topmost run reached by walking up) down, parents
 * before their children; a run alone in its tree gives one row.
 */
export function* agentTree(dialect: Dialect, runId: string): Query<AgentTreeRow[]> {
  const chain = yield* all<{ run_id: string; n: number | string }>(upSql(dialect), [runId]);
  // The topmost run met first on the way up; a cycle repeats runs, so the first repeat stops the walk.
  const seenUp = new Set<string>();
  let root = runId;
  for (const row of [...chain].sort((a, b) => Number(a.n) - Number(b.n))) {
    if (seenUp.has(row.run_id)) break;
    seenUp.add(row.run_id);
    root = row.run_id;
  }
  const rows = yield* all<TreeSqlRow>(downSql(dialect), [root]);
  const seen = new Set<string>();
  const tree: AgentTreeRow[] = [];
  for (const r of rows) {
    if (seen.has(r.run_id)) continue;
    seen.add(r.run_id);
    tree.push({
      runId: r.run_id,
      parentRunId: r.run_id === root ? null : r.parent_run_id,
      agentId: r.agent_id,
      agentName: r.agent_name,
      depth: Number(r.depth),
      run:
        r.status === null || r.flow_name === null
          ? null
          : {
              flowName: r.flow_name,
              status: r.status,
              startedAt: n(r.started_at) ?? 0,
              endedAt: n(r.ended_at),
              attemptCount: n(r.attempt_count) ?? 0,
              errorCount: n(r.error_count) ?? 0,
            },
    });
  }
  return tree;
}

/** The parents of those of `runIds` that are subagent runs, and how many subagent runs each of `runIds` started. */
export function* spawnLinks(_dialect: Dialect, runIds: readonly string[]): Query<{ parents: AgentSpawnLink[]; children: Map<string, number> }> {
  if (runIds.length === 0) return { parents: [], children: new Map() };
  const marks = runIds.map(() => '?').join(', ');
  const parents = yield* all<{ run_id: string; parent_run_id: string }>(`SELECT run_id, parent_run_id FROM agent_spawns WHERE run_id IN (${marks})`, runIds);
  const counts = yield* all<{ parent_run_id: string; c: number | string }>(
    `SELECT parent_run_id, COUNT(*) AS c FROM agent_spawns WHERE parent_run_id IN (${marks}) GROUP BY parent_run_id`,
    runIds,
  );
  return {
    parents: parents.map((p) => ({ runId: p.run_id, parentRunId: p.parent_run_id })),
    children: new Map(counts.map((c) => [c.parent_run_id, Number(c.c)])),
  };
}
