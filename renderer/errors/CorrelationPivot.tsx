import { useState } from 'react';
import type { PivotNode } from './pivot.js';

/** flow → run → task → attempt, with counts; every level below the flow opens the run. */
function size(nodes: readonly PivotNode[]): number {
  return nodes.reduce((n, node) => n + 1 + size(node.children), 0);
}

/** A tree of at most this many nodes opens all the way down. */
export const PIVOT_OPEN_ALL_UP_TO = 40;

export function CorrelationPivot({ nodes, truncated }: { nodes: readonly PivotNode[]; truncated: boolean }) {
  if (nodes.length === 0) return <p className="muted">No errors to correlate.</p>;
  // A small tree (one group, one run) opens all the way down to its attempts; a large one opens
  // its flows to their runs only, each run a click from its tasks (a run's tasks drew ~800 of the
  // screen's elements at 1M errors before it counted as filled, all far below the fold).
  const openDepth = size(nodes) <= PIVOT_OPEN_ALL_UP_TO ? 4 : 1;
  return (
    <div className="pivot">
      <PivotList nodes={nodes} depth={0} openDepth={openDepth} className="pivot-tree" label="Errors by flow, run, task and attempt" />
      {truncated && <p className="muted small-print">Built from the newest 500 occurrences.</p>}
    </div>
  );
}

/**
 * Siblings shown before a "show more" button. 500 occurrences spread over hundreds of runs drew
 * ~8,500 elements (most of the Errors screen's DOM) before the page counted as filled; the
 * largest come first, so the first few are the ones an operator reads, and the rest stay one
 * click away.
 */
export const PIVOT_SIBLINGS_SHOWN = 10;

function PivotList({
  nodes,
  depth,
  openDepth,
  className,
  label,
}: {
  nodes: readonly PivotNode[];
  depth: number;
  openDepth: number;
  className?: string;
  label?: string;
}) {
  const [shown, setShown] = useState(PIVOT_SIBLINGS_SHOWN);
  const hidden = nodes.length - shown;
  return (
    <ul className={className} aria-label={label}>
      {nodes.slice(0, shown).map((n) => (
        <PivotItem key={n.key} node={n} depth={depth} openDepth={openDepth} />
      ))}
      {hidden > 0 && (
        <li className="pivot-more">
          <button type="button" className="link" onClick={() => setShown((n) => n + PIVOT_SIBLINGS_SHOWN * 5)}>
            Show {Math.min(hidden, PIVOT_SIBLINGS_SHOWN * 5)} more of {nodes.length} {nodes[0]?.level ?? ''}s
          </button>
        </li>
      )}
    </ul>
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
      {hasChildren && open && <PivotList nodes={node.children} depth={depth + 1} openDepth={openDepth} />}
    </li>
  );
}
