import type { AgentTreeNodeView, AgentTreeView, UsageTotalsView } from '../../../core/service/api.js';
import { shortAgentId } from '../../../core/common/agent-ids.js';
import { reportedNothing } from '../../../core/common/usage-format.js';
import { amountText } from '../../lib/cost-format.js';

/**
 * The agent tree as the run page draws it (pure): each node with its children in the order the
 * service gave them (parents first, then by start), and the words of its spend: its own, and
 * its subagents' apart ("$0.50 own · $0.38 subagents").
 */

export interface AgentTreeItem {
  node: AgentTreeNodeView;
  children: AgentTreeItem[];
}

/** The tree's nested items, from its root (nodes whose parent is missing hang under the root). */
export function nestTree(tree: AgentTreeView): AgentTreeItem | null {
  const items = new Map(tree.nodes.map((node) => [node.runId, { node, children: [] as AgentTreeItem[] }]));
  const root = items.get(tree.rootRunId);
  if (root === undefined) return null;
  for (const item of items.values()) {
    if (item === root) continue;
    const parent = (item.node.parentRunId === null ? undefined : items.get(item.node.parentRunId)) ?? root;
    parent.children.push(item);
  }
  return root;
}

const spent = (u: UsageTotalsView | null): string | null => (u === null || reportedNothing(u) ? null : amountText(u));

/** "$0.50 own", "$0.38 subagents", and their total when both spent. */
export function spendWords(node: AgentTreeNodeView): { own: string | null; subagents: string | null; total: string | null } {
  const own = spent(node.own);
  const subagents = spent(node.subagents);
  return { own, subagents, total: own !== null && subagents !== null ? spent(node.total) : null };
}

/** The node's label: the subagent's kind and id, or the session's name. */
export function nodeLabel(node: AgentTreeNodeView): string {
  if (node.agentId === null) return node.name ?? node.runId;
  return node.agentName !== null ? `${node.agentName} · ${shortAgentId(node.agentId)}` : `subagent ${shortAgentId(node.agentId)}`;
}
