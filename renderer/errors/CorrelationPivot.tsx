import { useState } from 'react';
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
      <ul className="pivot-tree" aria-label="Errors by flow, run, task and attempt">
        {nodes.map((n) => (
          <PivotItem key={n.key} node={n} depth={0} openDepth={openDepth} />
        ))}
      </ul>
      {truncated && <p className="muted small-print">Built from the newest 500 occurrences.</p>}
    </div>
  );
}

/**
 * A level with children opens and closes with its own button; the link to the run is the
 * button's sibling, never inside it (a link in a <summary> is an interactive control nested in
 * another, which screen readers cannot reach: axe's nested-interactive).
 */
function PivotItem({ node, depth, openDepth }: { node: PivotNode; depth: number; openDepth: number }) {
  const [open, setOpen] = useState(depth < openDepth);
  const hasChildren = node.children.length > 0;
  const label = node.href ? (
    <a href={node.href} className="pivot-link" title={`open ${node.level === 'run' ? 'the run' : `the run at ${node.label}`}`}>
      {node.label}
    </a>
  ) : (
    <span className="pivot-label">{node.label}</span>
  );
  return (
    <li className={hasChildren ? 'pivot-node' : 'pivot-node pivot-leaf'}>
      <div className="pivot-row">
        {hasChildren ? (
          <button
            type="button"
            className="pivot-toggle"
            aria-expanded={open}
            aria-label={`${node.level} ${node.label}: ${node.count} errors`}
            onClick={() => setOpen((o) => !o)}
          >
            <span className="pivot-caret" aria-hidden="true">
              {open ? '▾' : '▸'}
            </span>
            <span className="pivot-level">{node.level}</span>
          </button>
        ) : (
          <span className="pivot-level">{node.level}</span>
        )}
        {label}
        <span className="pivot-count">{node.count}</span>
        <span className="pivot-codes muted">{node.codes.slice(0, 2).join(', ')}</span>
      </div>
      {hasChildren && open && (
        <ul>
          {node.children.map((c) => (
            <PivotItem key={c.key} node={c} depth={depth + 1} openDepth={openDepth} />
          ))}
        </ul>
      )}
    </li>
  );
}
