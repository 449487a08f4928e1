import type { RunDetail } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { hrefToCompare, hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime } from '../components/Time.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { useAsync } from '../lib/use-async.js';
import { compareRuns, type CompareRow } from './compare-runs.js';

function Cell({ row, side }: { row: CompareRow; side: 'left' | 'right' }) {
  const text = row[side];
  return (
    <td className={row.differs ? 'differs' : undefined} data-side={side}>
      {text === null ? <span className="muted">not run</span> : row.block ? <pre>{text}</pre> : text}
    </td>
  );
}

function RunHead({ detail }: { detail: RunDetail }) {
  const run = detail.run;
  return (
    <th scope="col">
      <a className="mono" href={hrefToRun(run.id)}>
        {run.id}
      </a>{' '}
      <StatusBadge status={run.status} />
      <div className="muted">
        started <RelativeTime ts={run.startedWall} />
      </div>
    </th>
  );
}

/** `#/compare/<a>/<b>`: two runs side by side, cells that differ marked. */
export function ComparePage({ left, right }: { left: string; right: string }) {
  const api = useApi();
  const { state, reload } = useAsync(() => Promise.all([api.getRun({ runId: left }), api.getRun({ runId: right })]), [api, left, right]);
  if (state.status === 'error') return <ErrorState title="Could not load the runs" error={state.error} onRetry={reload} />;
  if (!state.data) return <Loading what="the two runs" />;
  const [a, b] = state.data;
  if (!a || !b) {
    return (
      <EmptyState title="No such run">
        There is no run <code>{!a ? left : right}</code> in this database. <a href="#/runs">Back to all runs</a>
      </EmptyState>
    );
  }
  const groups = compareRuns(a, b);
  return (
    <section className="page compare" aria-label={`Compare ${left} with ${right}`}>
      <header className="run-header">
        <div className="run-title">
          <a href="#/runs" className="back" title="Back to all runs">
            ← Runs
          </a>
          <h1>Compare runs</h1>
          <div className="run-actions">
            <a className="button-link" href={hrefToCompare(right, left)} title="swap the two sides">
              Swap sides
            </a>
          </div>
        </div>
        {a.run.flow !== b.run.flow && (
          <p className="compare-note">These runs are of different flows: their tasks are matched by place (step and ordinal) only.</p>
        )}
      </header>
      <section className="panel">
        <table className="compare-table" data-testid="compare-table">
          <thead>
            <tr>
              <th className="compare-label" scope="col" />
              <RunHead detail={a} />
              <RunHead detail={b} />
            </tr>
          </thead>
          {groups.map((g) => (
            <tbody key={g.key} data-group={g.key}>
              <tr>
                <th colSpan={3} scope="colgroup">
                  {g.title}
                </th>
              </tr>
              {g.rows.map((r) => (
                <tr key={r.key} data-row={r.key}>
                  <th className="compare-label" scope="row">
                    {r.label}
                  </th>
                  <Cell row={r} side="left" />
                  <Cell row={r} side="right" />
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </section>
    </section>
  );
}
