import type { FlowHealthView, FlowInfo } from '../../core/service/api.js';
import { formatHash, navigate } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime } from '../components/Time.js';
import { amountText, splitTotal } from '../lib/cost-format.js';
import { formatDuration } from '../lib/format.js';
import { ariaSort, nextSort, shareText, successText, waitedParts, type FlowRow, type FlowSection, type Sort, type SortKey } from './flow-health.js';
import { diagnosticSummary } from './source-lines.js';

/**
 * The Flows list (docs/triage.md "Flow health"): one row per flow with whether its file checks
 * (a badge of its own: "check ok" says nothing about its runs), its newest run, success rate and
 * failures of the runs that ended in the period, the median duration of its completed runs, the
 * time its runs waited on a person's approval (and how many wait now), and what it spent with the
 * share spent on failure. Sortable by every column; a row opens its flow.
 */

const COLUMNS: { key: SortKey; label: string; title: string; num?: boolean }[] = [
  { key: 'name', label: 'Flow', title: 'the flow file, and its first problem when it does not check' },
  { key: 'check', label: 'Check', title: 'whether the flow file checks: nothing about its runs' },
  { key: 'last', label: 'Last run', title: 'the status of its newest run, whenever it started' },
  {
    key: 'success',
    label: 'Success',
    title: 'completed ÷ (completed + failed) of the runs that ended in the period; cancelled and interrupted runs are no verdict',
    num: true,
  },
  { key: 'failures', label: 'Failures', title: 'runs that ended failed in the period', num: true },
  { key: 'p50', label: 'p50', title: 'median duration of the runs that completed in the period (within 5 %)', num: true },
  {
    key: 'waited',
    label: 'Waited',
    title: "time its runs that ended in the period waited on a person's approval of a permission prompt, and how many of its runs wait for one now",
    num: true,
  },
  { key: 'cost', label: 'Cost', title: 'what its agents spent in the period, and the share spent by failed runs and retried attempts', num: true },
];

const SECTION_TITLE: Record<FlowSection, string> = { examples: 'Examples', yours: 'Your flows', others: 'Other flows with runs' };

function CheckBadge({ info, flowId }: { info: FlowInfo | null; flowId: string }) {
  if (info === null) {
    const session = flowId.startsWith('external:');
    return (
      <span
        className="check-badge none"
        title={session ? 'an agent session seen through its telemetry: no flow file' : 'its file is not in the examples or your flows folder'}
      >
        {session ? 'session' : 'no file'}
      </span>
    );
  }
  const problems = info.diagnostics.filter((d) => d.severity === 'error').length;
  return info.ok ? (
    <span className="check-badge ok" data-testid="flow-check">
      check ok
    </span>
  ) : (
    <span className="check-badge bad" data-testid="flow-check" title={problems > 0 ? diagnosticSummary(info.diagnostics) : 'not a flow file'}>
      check errors{problems > 0 ? ` (${problems})` : ''}
    </span>
  );
}

function CostCell({ health }: { health: FlowHealthView | null }) {
  if (!health) return <span className="muted">—</span>;
  const total = splitTotal(health.cost);
  if (total.attempts === 0) return <span className="muted">—</span>;
  const share = shareText(health.cost);
  const title = `${amountText(health.cost.failed)} by failed runs, ${amountText(health.cost.retried)} on retried attempts, ${amountText(health.cost.succeeded)} by successful work`;
  return (
    <span className="flow-cost" title={title} data-testid="flow-cost">
      {amountText(total)}
      {share !== null && <span className={`cell-sub${health.cost.failed.costUsd + health.cost.retried.costUsd > 0 ? ' error-text' : ' muted'}`}>{share}</span>}
    </span>
  );
}

function WaitedCell({ row }: { row: FlowRow }) {
  const { waited, runs, now } = waitedParts(row.health);
  if (waited === null && now === null) return <span className="muted">—</span>;
  return (
    <span className="flow-waited" data-testid="flow-waited">
      {waited}
      {runs !== null && <span className="cell-sub muted">{runs}</span>}
      {now !== null && (
        <a
          className="cell-sub"
          href={formatHash(['runs'], { flow: row.id, status: 'waiting-approval' })}
          title={`the runs of ${row.name} waiting for approval now`}
        >
          {now}
        </a>
      )}
    </span>
  );
}

function FlowName({ row, selected }: { row: FlowRow; selected: boolean }) {
  const first = row.info?.diagnostics.find((d) => d.severity === 'error');
  const where = first ? `${first.file}:${first.line}:${first.column}` : null;
  const href = row.info ? formatHash(['flows', row.id]) : formatHash(['runs'], { flow: row.id });
  return (
    <>
      <a href={href} className="flow-link" aria-current={selected ? 'page' : undefined} title={row.info ? row.id : `${row.id}: its runs`}>
        {row.name}
      </a>
      {row.info && (
        <span className="cell-sub muted">
          {row.info.sessions} session{row.info.sessions === 1 ? '' : 's'}
        </span>
      )}
      {first && (
        <span className="flow-diagnostic error-text" data-testid="flow-diagnostic" title={`${where} ${first.message}`}>
          <code>{where}</code> {first.message}
        </span>
      )}
    </>
  );
}

function HealthRow({ row, selected }: { row: FlowRow; selected: boolean }) {
  const h = row.health;
  return (
    <tr
      className={`flow-item${selected ? ' selected' : ''}`}
      data-flow-id={row.id}
      data-last-status={h?.lastRun?.status ?? 'none'}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a') === null) navigate(row.info ? formatHash(['flows', row.id]) : formatHash(['runs'], { flow: row.id }));
      }}
    >
      <th scope="row" className="flow-cell">
        <FlowName row={row} selected={selected} />
      </th>
      <td>
        <CheckBadge info={row.info} flowId={row.id} />
      </td>
      <td data-testid="flow-last">
        {h?.lastRun ? (
          <span className="flow-last">
            <StatusBadge status={h.lastRun.status} />
            <span className="cell-sub muted">
              <RelativeTime ts={h.lastRun.startedWall} />
            </span>
          </span>
        ) : (
          <span className="muted">no runs</span>
        )}
      </td>
      <td className="num" data-testid="flow-success">
        {successText(h)}
      </td>
      <td className={`num${(h?.ended.failed ?? 0) > 0 ? ' error-text' : ''}`} data-testid="flow-failures">
        {h?.ended.failed ?? 0}
      </td>
      <td className="num">{h?.p50DurationMs == null ? <span className="muted">—</span> : formatDuration(h.p50DurationMs)}</td>
      <td className="num">
        <WaitedCell row={row} />
      </td>
      <td className="num">
        <CostCell health={h} />
      </td>
    </tr>
  );
}

export function FlowHealthTable({
  rows,
  sort,
  onSort,
  selectedId,
}: {
  rows: readonly FlowRow[];
  sort: Sort;
  onSort: (sort: Sort) => void;
  selectedId: string | null;
}) {
  const sections = (['examples', 'yours', 'others'] as const)
    .map((section) => ({ section, rows: rows.filter((r) => r.section === section) }))
    .filter((s) => s.section !== 'others' || s.rows.length > 0);
  return (
    <table className="flow-health" data-testid="flow-health">
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th key={c.key} scope="col" className={c.num ? 'num' : undefined} aria-sort={ariaSort(sort, c.key)}>
              <button
                type="button"
                className="sort-header"
                title={`sort by ${c.label.toLowerCase()}: ${c.title}`}
                onClick={() => onSort(nextSort(sort, c.key))}
              >
                {c.label}
                <span aria-hidden="true">{sort.key === c.key ? (sort.descending ? ' ▴' : ' ▾') : ''}</span>
              </button>
            </th>
          ))}
        </tr>
      </thead>
      {sections.map(({ section, rows: sectionRows }) => (
        <tbody key={section} data-section={section}>
          <tr className="flow-section">
            <th scope="colgroup" colSpan={COLUMNS.length}>
              {SECTION_TITLE[section]}
            </th>
          </tr>
          {sectionRows.length === 0 ? (
            <tr>
              <td colSpan={COLUMNS.length} className="muted small-print">
                None yet. Edit a draft of any flow and save it here, or put <code>.prose</code> files in the <code>flows</code> folder next to your database (
                <code>hivewatch serve</code> prints where) and press Reload.
              </td>
            </tr>
          ) : (
            sectionRows.map((row) => <HealthRow key={row.id} row={row} selected={row.id === selectedId} />)
          )}
        </tbody>
      ))}
    </table>
  );
}
