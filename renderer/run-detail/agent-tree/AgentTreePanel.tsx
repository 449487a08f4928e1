import type { AgentTreeView } from '../../../core/service/api.js';
import { hrefToRun } from '../../app/router.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { plural } from '../../lib/format.js';
import { nestTree, nodeLabel, spendWords, type AgentTreeItem } from './agent-tree-view.js';

/** One agent of the tree and the subagents it started, nested. */
function AgentNode({ item, current }: { item: AgentTreeItem; current: string }) {
  const { node } = item;
  const words = spendWords(node);
  const here = node.runId === current;
  return (
    <li className="agent-node" data-run={node.runId} data-depth={node.depth}>
      <div className={`agent-row${here ? ' agent-here' : ''}`}>
        {here ? (
          <span className="agent-name" aria-current="page">
            {nodeLabel(node)}
          </span>
        ) : (
          <a className="agent-name" href={hrefToRun(node.runId)}>
            {nodeLabel(node)}
          </a>
        )}
        {node.status !== null ? <StatusBadge status={node.status} /> : <span className="muted">no telemetry yet</span>}
        <span className="agent-facts muted">
          {plural(node.attempts, 'request')}
          {node.errorCount > 0 ? ` · ${plural(node.errorCount, 'error')}` : ''}
        </span>
        <span className="agent-spend">
          {words.own !== null ? <span data-spend="own">{words.own} own</span> : <span className="muted">no spend reported</span>}
          {words.subagents !== null ? <span data-spend="subagents"> · {words.subagents} subagents</span> : null}
          {words.total !== null ? <span data-spend="total"> · {words.total} in all</span> : null}
        </span>
      </div>
      {item.children.length > 0 ? (
        <ul className="agent-children" aria-label={`Subagents of ${nodeLabel(node)}`}>
          {item.children.map((child) => (
            <AgentNode key={child.node.runId} item={child} current={current} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/**
 * The agent tree the run belongs to (docs/otel.md "Subagents"): the session, the subagents it
 * started, theirs, each with its status, requests, errors and spend (its own and its subagents'
 * apart, so nothing reads twice). Each node opens that agent's run.
 */
export function AgentTreePanel({ tree, runId }: { tree: AgentTreeView; runId: string }) {
  const root = nestTree(tree);
  if (root === null) return null;
  const subagents = tree.nodes.length - 1;
  return (
    <section className="panel agent-tree" aria-labelledby="agent-tree-title">
      <h2 id="agent-tree-title">
        Agents <span className="muted">({plural(subagents, 'subagent')})</span>
      </h2>
      <ul className="agent-children agent-root">
        <AgentNode item={root} current={runId} />
      </ul>
    </section>
  );
}
