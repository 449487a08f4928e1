import type { PivotNode } from './pivot.js';

/** flow → run → task → attempt, with counts; every level below the flow opens the run. */
function size(nodes: readonly PivotNode[]): number {
  return nodes.reduce((n, node) => n + 1 + size(node.children), 0);
}

export function CorrelationPivot({ nodes, truncated }: { nodes: readonly PivotNode[]; truncated: boolean }) {
  if (nodes.length === 0) return <p className="muted">No errors to correlate.</p>;
  // A small tree (one group, one run) opens all the way down to its attempts.
  const openDepth = size(nodes) <= 40 ? 4 : 2;
  return (
    <div className="pivot">
      <ul className="pivot-tree" role="tree" aria-label="Errors by flow, run, task and attempt">
        {nodes.map((n) => (
          <PivotItem key={n.key} node={n} depth={0} openDepth={openDepth} />
        ))}
      </ul>
      {truncated && <p className="muted small-print">Built from the newest 500 occurrences.</p>}
    </div>
  );
}

function PivotItem({ node, depth, openDepth }: { node: PivotNode; depth: number; openDepth: number }) {
  const label = node.href ? (
    <a href={node.href} className="pivot-link" title={`open ${node.level === 'run' ? 'the run' : `the run at ${node.label}`}`}>
      {node.label}
    </a>
  ) : (
    <span className="pivot-label">{node.label}</span>
  );
  const head = (
    <>
      <span className={`pivot-level level-${node.level}`}>{node.level}</span>
      {label}
      <span className="pivot-count">{node.count}</span>
      <span className="pivot-codes muted">{node.codes.slice(0, 2).join(', ')}</span>
    </>
  );
  if (node.children.length === 0) {
    return (
      <li role="treeitem" aria-level={depth + 1} className="pivot-leaf">
        {head}
      </li>
    );
  }
  return (
    <li role="treeitem" aria-level={depth + 1}>
      <details open={depth < openDepth}>
        <summary>{head}</summary>
        <ul role="group">
          {node.children.map((c) => (
            <PivotItem key={c.key} node={c} depth={depth + 1} openDepth={openDepth} />
          ))}
        </ul>
      </details>
    </li>
  );
}
