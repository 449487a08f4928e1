import { useMemo } from 'react';
import type { FlowInfo } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { formatHash, navigate, useRoute } from '../app/router.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { useAsync } from '../lib/use-async.js';
import { FlowView } from './FlowView.js';
import { FlowCosts } from './FlowCosts.js';
import { diagnosticSummary } from './source-lines.js';

function folderOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i > 0 ? path.slice(0, i) : path;
}

/** A flow that does not check names its first error where it is listed: file:line:col and the message. */
function FlowItem({ flow, selected }: { flow: FlowInfo; selected: boolean }) {
  const problems = flow.diagnostics.filter((d) => d.severity === 'error').length;
  const first = flow.diagnostics.find((d) => d.severity === 'error');
  const where = first ? `${first.file}:${first.line}:${first.column}` : null;
  return (
    <li>
      <a href={formatHash(['flows', flow.id])} className={`flow-item${selected ? ' selected' : ''}`} aria-current={selected ? 'page' : undefined} data-flow-id={flow.id}>
        <span className="flow-name">{flow.name}</span>
        <span className="flow-meta">
          {flow.sessions} session{flow.sessions === 1 ? '' : 's'}
          {flow.ok ? <span className="ok-text"> · ok</span> : <span className="error-text"> · {problems > 0 ? diagnosticSummary(flow.diagnostics) : 'invalid'}</span>}
        </span>
        {first && (
          <span className="flow-diagnostic error-text" data-testid="flow-diagnostic" title={`${where} ${first.message}`}>
            <code>{where}</code> {first.message}
          </span>
        )}
      </a>
    </li>
  );
}

/** The bundled examples and the operator's own flows; pick one to read, check and start it. */
export function FlowsPage({ flowId }: { flowId: string | null }) {
  const api = useApi();
  const { state, reload } = useAsync(() => api.listFlows(), [api]);
  const { params } = useRoute();
  const flows = state.data;
  const bundled = useMemo(() => (flows ?? []).filter((f) => f.bundled), [flows]);
  const own = useMemo(() => (flows ?? []).filter((f) => !f.bundled), [flows]);
  const ids = useMemo(() => new Set((flows ?? []).map((f) => f.id)), [flows]);
  const selected = flows?.find((f) => f.id === flowId) ?? (flowId === null ? bundled[0] : undefined);

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
      <div className="flows-layout">
        <nav className="flow-list" aria-label="Flows">
          <h2>Examples</h2>
          <ul>
            {bundled.map((f) => (
              <FlowItem key={f.id} flow={f} selected={f.id === selected?.id} />
            ))}
          </ul>
          <h2>Your flows</h2>
          {own.length === 0 ? (
            <p className="muted small-print">
              None yet. Edit a draft of any flow and save it here, or put <code>.prose</code> files in the <code>flows</code> folder next to your database (<code>hivewatch serve</code> prints where) and press Reload.
            </p>
          ) : (
            <>
              <p className="muted small-print mono" title="the folder these come from">
                {folderOf(own[0]?.path ?? '')}
              </p>
              <ul>
                {own.map((f) => (
                  <FlowItem key={f.id} flow={f} selected={f.id === selected?.id} />
                ))}
              </ul>
            </>
          )}
        </nav>
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
      </div>
      <FlowCosts flows={flows} />
    </section>
  );
}
