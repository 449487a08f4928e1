import { useMemo, useState } from 'react';
import { useApi, useRunsSnapshot } from '../app/api-context.js';
import { formatHash, navigate, useRoute } from '../app/router.js';
import { CostSplitFigures, CostTrend, hasSpend } from '../components/CostSplitFigures.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { useAsync } from '../lib/use-async.js';
import { usePacedReloads, useReadInFlight } from '../lib/use-paced-reloads.js';
import { flowRows, sortRows, type Sort } from './flow-health.js';
import { FlowHealthTable } from './FlowHealthTable.js';
import { FlowView } from './FlowView.js';

/** The period the health and cost figures cover (the Errors screen's ranges, but the hour: too few runs end in one). */
const PERIODS = [
  { key: '24h', label: '24 h', ms: 86_400_000 },
  { key: '7d', label: '7 d', ms: 7 * 86_400_000 },
  { key: '30d', label: '30 d', ms: 30 * 86_400_000 },
] as const;
type PeriodKey = (typeof PERIODS)[number]['key'];

/**
 * The flows' health and what they spent in the period; read again when the period changes, on
 * Reload, and as runs end live (paced: use-paced-reloads.ts), so a failure moves its flow's
 * figures within a second.
 */
function useFlowHealth(period: PeriodKey, reloads: number) {
  const api = useApi();
  const ended = usePacedReloads(useRunsSnapshot().liveEndings);
  const health = useAsync(() => {
    const since = Date.now() - (PERIODS.find((p) => p.key === period)?.ms ?? 0);
    return Promise.all([api.flowHealth({ since }), api.costSplit({ since })]);
  }, [api, period, reloads, ended.count]);
  useReadInFlight(ended, health.state.status === 'loading');
  return health;
}

function PeriodPicker({ period, onChange }: { period: PeriodKey; onChange: (period: PeriodKey) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Period of the figures">
      {PERIODS.map((p) => (
        <button key={p.key} type="button" aria-pressed={period === p.key} className={period === p.key ? 'on' : ''} onClick={() => onChange(p.key)}>
          {p.label}
        </button>
      ))}
    </div>
  );
}

/** The bundled examples and the operator's own flows; pick one to read, check and start it. */
export function FlowsPage({ flowId }: { flowId: string | null }) {
  const api = useApi();
  const [reloads, setReloads] = useState(0);
  const { state } = useAsync(() => api.listFlows(), [api, reloads]);
  const [period, setPeriod] = useState<PeriodKey>('7d');
  const [sort, setSort] = useState<Sort>({ key: 'last', descending: false });
  const health = useFlowHealth(period, reloads).state;
  const { params } = useRoute();
  const flows = state.data;
  const bundled = useMemo(() => (flows ?? []).filter((f) => f.bundled), [flows]);
  const ids = useMemo(() => new Set((flows ?? []).map((f) => f.id)), [flows]);
  const rows = useMemo(() => sortRows(flowRows(flows ?? [], health.data?.[0] ?? []), sort), [flows, health.data, sort]);
  const selected = flows?.find((f) => f.id === flowId) ?? (flowId === null ? bundled[0] : undefined);
  const reload = (): void => setReloads((n) => n + 1);
  const split = health.data?.[1];

  if (state.status === 'loading' && !flows) return <Loading what="flows" />;
  if (state.status === 'error' && !flows) return <ErrorState title="Could not load the flows" error={state.error} onRetry={reload} />;
  if (!flows || flows.length === 0)
    return (
      <EmptyState title="No flows found">
        Neither bundled examples nor flows of your own were found. Put <code>.prose</code> files in your flows folder and reload.
      </EmptyState>
    );

  return (
    <section className="page flows-page" aria-labelledby="flows-title">
      <header className="page-header">
        <h1 id="flows-title">Flows</h1>
        <span className="page-meta">Pick a flow to read it, check it, and start a run.</span>
        <button type="button" className="small" onClick={reload}>
          Reload
        </button>
      </header>
      <StaleNote failed={failedRead(state)} />
      <section className="flow-health-panel" aria-labelledby="flow-health-title">
        <div className="flow-health-head">
          <h2 id="flow-health-title">How each flow fares</h2>
          <PeriodPicker period={period} onChange={setPeriod} />
          <span className="small-print muted" data-testid="flows-cost">
            {health.status === 'error' ? (
              <span className="error-text">Could not load the runs' figures: {health.error}</span>
            ) : split && hasSpend(split.total) ? (
              <>
                All flows spent <CostSplitFigures split={split.total} /> <CostTrend trend={split.trend} />
              </>
            ) : health.status === 'loading' && health.data === undefined ? (
              'Loading the figures…'
            ) : (
              'No attempt in this period reported tokens or cost.'
            )}
          </span>
        </div>
        <FlowHealthTable rows={rows} sort={sort} onSort={setSort} selectedId={selected?.id ?? null} />
      </section>
      <div className="flow-main">
        {selected ? (
          <FlowView
            key={selected.id}
            flow={selected}
            startOpen={params.get('edit') === '1'}
            existing={ids}
            onSaved={(saved) => {
              reload();
              navigate(formatHash(['flows', saved.id]));
            }}
          />
        ) : (
          <EmptyState title="No such flow">
            <code>{flowId}</code> is not in the list. <a href="#/flows">Show the examples</a>
          </EmptyState>
        )}
      </div>
    </section>
  );
}
