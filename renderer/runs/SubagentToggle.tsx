import { plural } from '../lib/format.js';

/** "▸ 2 subagents": shows or hides a session's subagents under its row in the Runs list (grid item 2). */
export function SubagentToggle({
  runId,
  count,
  unfolded,
  onToggle,
  tabIndex,
}: {
  runId: string;
  count: number;
  unfolded: boolean;
  onToggle: (runId: string) => void;
  tabIndex: number;
}) {
  return (
    <button
      type="button"
      className="subagent-toggle"
      aria-expanded={unfolded}
      aria-label={`${unfolded ? 'Hide' : 'Show'} ${plural(count, 'subagent')} of run ${runId}`}
      data-item={2}
      tabIndex={tabIndex}
      // The row selects itself on mouse down; the toggle is a click of its own.
      onMouseDown={(e) => e.stopPropagation()}
      onClick={() => onToggle(runId)}
    >
      <span aria-hidden="true">{unfolded ? '▾' : '▸'}</span> {plural(count, 'subagent')}
    </button>
  );
}
