import type { RunStatus } from '../../base/events.js';
import { agentTree, spawnLinks, type AgentTreeRow } from '../../store/queries/agent-tree.js';
import type { HivewatchStore } from '../../store/contract.js';
import type { AgentTreeNodeView, AgentTreeView, RunDetail, RunSummary, UsageTotalsView } from '../api.js';

/**
 * Agent trees in the API (docs/otel.md "Subagents"): a run's detail carries the tree it belongs
 * to, each node with its own spend and its subagents' apart; the Runs list's summaries say which
 * run started a subagent's run and how many each started, so the window can fold them.
 */

const TOTAL_KEYS = [
  'attempts',
  'failedAttempts',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costUsd',
  'failedCostUsd',
  'unknownCostAttempts',
] as const;

/** Two sums added (null: neither reported anything). */
function addTotals(a: UsageTotalsView | null, b: UsageTotalsView | null): UsageTotalsView | null {
  if (a === null) return b;
  if (b === null) return a;
  const sum = { ...a };
  for (const key of TOTAL_KEYS) sum[key] = a[key] + b[key];
  return sum;
}

function totalsOf(usage: UsageTotalsView | undefined): UsageTotalsView | null {
  if (usage === undefined) return null;
  const totals = {} as UsageTotalsView;
  for (const key of TOTAL_KEYS) totals[key] = usage[key];
  return totals;
}

/**
 * The tree's nodes with their figures (pure): `own` is the run's own usage; `subagents` adds its
 * children's `total`s, children before parents, so each run's usage enters each ancestor once.
 */
export function treeNodes(rows: readonly AgentTreeRow[], usage: ReadonlyMap<string, UsageTotalsView>): AgentTreeNodeView[] {
  const nodes: AgentTreeNodeView[] = rows.map((r) => ({
    runId: r.runId,
    parentRunId: r.parentRunId,
    agentId: r.agentId,
    agentName: r.agentName,
    depth: r.depth,
    name: r.run?.flowName ?? null,
    status: (r.run?.status ?? null) as RunStatus | null,
    startedAt: r.run?.startedAt ?? null,
    endedAt: r.run?.endedAt ?? null,
    attempts: r.run?.attemptCount ?? 0,
    errorCount: r.run?.errorCount ?? 0,
    own: totalsOf(usage.get(r.runId)),
    subagents: null,
    total: null,
  }));
  const byId = new Map(nodes.map((n) => [n.runId, n]));
  // Rows come parents first (by depth): walking them backwards totals every child before its parent.
  for (const node of [...nodes].reverse()) {
    node.total = addTotals(node.own, node.subagents);
    const parent = node.parentRunId === null ? undefined : byId.get(node.parentRunId);
    if (parent !== undefined && parent !== node) parent.subagents = addTotals(parent.subagents, node.total);
  }
  return nodes;
}

/** The detail with the agent tree its run belongs to (unchanged when the run is alone). */
export async function withAgentTree(detail: RunDetail, store: HivewatchStore): Promise<RunDetail> {
  const rows = await store.runStatements((d) => agentTree(d, detail.run.id));
  if (rows.length <= 1) return detail;
  const usage = await store.usage({ kind: 'runs', runIds: rows.map((r) => r.runId) });
  const tree: AgentTreeView = { rootRunId: (rows[0] as AgentTreeRow).runId, nodes: treeNodes(rows, usage) };
  // The run's own links, as the Runs list's summaries carry them (the window's live rows are re-read from here).
  const self = rows.find((r) => r.runId === detail.run.id);
  const subagents = rows.filter((r) => r.parentRunId === detail.run.id && r.runId !== detail.run.id).length;
  const run = {
    ...detail.run,
    ...(self?.parentRunId ? { spawnedBy: self.parentRunId } : {}),
    ...(subagents > 0 ? { subagents } : {}),
  };
  return { ...detail, run, agentTree: tree };
}

/** The summaries with the run that started each subagent's run and how many subagent runs each started. */
export async function withSpawnLinks(store: HivewatchStore, summaries: RunSummary[]): Promise<RunSummary[]> {
  const external = summaries.filter((s) => s.source !== undefined).map((s) => s.id);
  if (external.length === 0) return summaries;
  const links = await store.runStatements((d) => spawnLinks(d, external));
  const parents = new Map(links.parents.map((l) => [l.runId, l.parentRunId]));
  return summaries.map((s) => {
    const spawnedBy = parents.get(s.id);
    const subagents = links.children.get(s.id);
    if (spawnedBy === undefined && subagents === undefined) return s;
    return { ...s, ...(spawnedBy !== undefined ? { spawnedBy } : {}), ...(subagents !== undefined ? { subagents } : {}) };
  });
}
