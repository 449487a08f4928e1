import { useEffect, useMemo, useRef, useState } from 'react';
import type { CheckResult, Diagnostic, FlowInfo } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { hrefToRun, navigate } from '../app/router.js';
import { useToast } from '../app/toasts.js';
import { errorText } from '../lib/use-async.js';
import { FlowEditor, type FlowEditorHandle } from './editor/FlowEditor.js';
import { MuteToggle } from './MuteToggle.js';
import { RecentRuns } from './RecentRuns.js';
import { SaveDraft } from './SaveDraft.js';
import { diagnosticSummary } from './source-lines.js';

/** Start a run of the flow (virtual clock, max steps), mute its notifications, see where its agents work. */
function StartPanel({ flow }: { flow: FlowInfo }) {
  const api = useApi();
  const toast = useToast();
  const [virtualClock, setVirtualClock] = useState(flow.bundled);
  const [maxSteps, setMaxSteps] = useState(100);
  const [starting, setStarting] = useState(false);

  const start = async (): Promise<void> => {
    setStarting(true);
    try {
      const { runId } = await api.startRun({ flow: flow.id, virtualClock, maxSteps });
      navigate(hrefToRun(runId));
    } catch (error) {
      toast(`Could not start ${flow.name}: ${errorText(error)}`, 'error');
      setStarting(false);
    }
  };

  return (
    <div className="start-panel">
      <button
        type="button"
        className="primary big"
        disabled={!flow.ok || starting}
        onClick={() => void start()}
        title={flow.ok ? 'start a run of this flow' : 'fix the diagnostics first'}
      >
        {starting ? 'Starting…' : 'Start run'}
      </button>
      <label className="checkbox" title="backoff waits and timeouts take no real time; the journal keeps every delay">
        <input type="checkbox" checked={virtualClock} onChange={(e) => setVirtualClock(e.currentTarget.checked)} /> Virtual clock
        <span className="muted"> (waits take no real time)</span>
      </label>
      <label className="number">
        Max steps <input type="number" min={1} max={10_000} value={maxSteps} onChange={(e) => setMaxSteps(Math.max(1, Number(e.currentTarget.value) || 1))} />
      </label>
      <MuteToggle flowId={flow.id} />
      {flow.repo && (
        <p
          className="muted small-print flow-repo"
          data-testid="flow-repo"
          title="the repository its sessions work in (git worktrees on the branch hivewatch/<run id>)"
        >
          Agent work in {flow.repo}
        </p>
      )}
    </div>
  );
}

/** The flow's (or the draft's) diagnostics, one line each; each takes the editor to its place. */
function DiagnosticList({ diagnostics, onReveal }: { diagnostics: readonly Diagnostic[]; onReveal: (d: Diagnostic) => void }) {
  if (diagnostics.length === 0) return null;
  return (
    <ul className="diagnostic-list">
      {diagnostics.map((d, i) => (
        <li key={i} className={`diagnostic-${d.severity}`}>
          <button type="button" className="link mono" title="show it in the editor" onClick={() => onReveal(d)}>
            {d.line}:{d.column}
          </button>{' '}
          {d.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * The service's check of the draft, asked as the operator types (debounced). An answer for an
 * older text than the last one asked (a slow one) is dropped; `forget` clears the last answer.
 */
function useDraftCheck(flow: FlowInfo, editing: boolean, draft: string) {
  const api = useApi();
  const toast = useToast();
  const [checked, setChecked] = useState<(CheckResult & { source: string }) | null>(null);
  const [checking, setChecking] = useState(false);
  const asked = useRef<string | null>(null);

  const check = async (source: string): Promise<void> => {
    asked.current = source;
    setChecking(true);
    try {
      const result = await api.checkFlow({ source, file: flow.path });
      if (asked.current === source) setChecked({ ...result, source });
    } catch (error) {
      toast(`Could not check: ${errorText(error)}`, 'error');
    } finally {
      if (asked.current === source) setChecking(false);
    }
  };

  useEffect(() => {
    if (!editing) return;
    const id = setTimeout(() => void check(draft), 400);
    return () => clearTimeout(id);
  }, [draft, editing]);

  const forget = (): void => {
    asked.current = null;
    setChecked(null);
    setChecking(false);
  };
  return { checked, checking, forget };
}

/**
 * One flow: start it, read it in the editor (highlighted, its diagnostics in place), edit a
 * draft there, check it as it is typed and save it to the operator's folder, see its recent
 * runs, mute its failure notifications.
 */
export function FlowView({
  flow,
  startOpen,
  existing,
  onSaved,
}: {
  flow: FlowInfo;
  startOpen: boolean;
  existing: ReadonlySet<string>;
  onSaved: (saved: FlowInfo) => void;
}) {
  const [editing, setEditing] = useState(startOpen);
  const [draft, setDraft] = useState(flow.source);
  const { checked, checking, forget } = useDraftCheck(flow, editing, draft);
  const editor = useRef<FlowEditorHandle | null>(null);

  const fromFile = useMemo(() => ({ ok: flow.ok, diagnostics: flow.diagnostics, source: flow.source, highlight: flow.highlight }), [flow]);
  const shown = editing && checked ? checked : fromFile;
  // Saving takes the draft exactly as it was checked: a change since waits for its check.
  const draftChecks = editing && checked !== null && checked.ok && checked.source === draft;

  return (
    <article className="flow-view" aria-labelledby="flow-title">
      <header className="flow-header">
        <div>
          <h2 id="flow-title">{flow.name}</h2>
          <p className="muted mono small-print" title={flow.path}>
            {flow.id} · {flow.bundled ? 'bundled example' : flow.path}
          </p>
        </div>
        <div className={`check-status ${flow.ok ? 'ok' : 'bad'}`} role="status">
          {flow.ok ? '✓ checks pass' : `✗ ${diagnosticSummary(flow.diagnostics)}`}
        </div>
      </header>

      <StartPanel flow={flow} />

      <RecentRuns flowId={flow.id} />

      <div className="source-head">
        <h3>{editing ? 'Flow draft (not saved: checked as you type)' : 'Flow source'}</h3>
        <button
          type="button"
          className="small"
          onClick={() => {
            setEditing(!editing);
            forget();
            setDraft(flow.source);
          }}
        >
          {editing ? 'Back to the file' : 'Edit a draft and check it'}
        </button>
      </div>
      <DiagnosticList diagnostics={shown.diagnostics} onReveal={(d) => editor.current?.reveal(d.line, d.column)} />
      <FlowEditor
        value={editing ? draft : flow.source}
        readOnly={!editing}
        label={editing ? 'Flow draft' : 'Flow source'}
        checked={shown}
        onChange={setDraft}
        onReady={(handle) => {
          editor.current = handle;
        }}
      />
      <p className="muted small-print editor-keys">
        {editing ? 'Tab indents, Shift+Tab outdents; Escape then Tab leaves the editor. ' : ''}F8 goes to the next problem, Ctrl+Shift+M lists them.
      </p>
      {editing && (
        <p className="muted small-print" role="status" data-testid="check-result">
          {checking ? 'Checking…' : checked ? (checked.ok ? '✓ The draft checks.' : `✗ ${diagnosticSummary(checked.diagnostics)}`) : ''}
        </p>
      )}
      {editing && <SaveDraft flow={flow} draft={draft} checksOk={draftChecks} existing={existing} onSaved={onSaved} />}
    </article>
  );
}
