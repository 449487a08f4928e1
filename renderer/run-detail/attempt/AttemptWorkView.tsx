import { formatDuration } from '../../lib/format.js';
import type { AttemptWork } from './attempt-work.js';

/** An attempt's agent work: its feedback, its checks with their output, what it changed, its commit. Text only. */
export function AttemptWorkView({ work }: { work: AttemptWork }) {
  return (
    <div className="attempt-work" data-testid="attempt-work">
      {work.feedback && (
        <details className="work-feedback">
          <summary>Told about the previous attempt</summary>
          <pre>{work.feedback}</pre>
        </details>
      )}
      {work.checks.length > 0 && (
        <div className="work-checks">
          <h4>Checks</h4>
          <ul>
            {work.checks.map((c, i) => (
              <li key={`${c.name}-${i}`} className={c.ok ? 'check-ok' : 'check-failed'} data-check={c.name}>
                <span className={`badge outcome ${c.ok ? 'outcome-succeeded' : 'outcome-failed'}`}>
                  <span className="dot" aria-hidden="true" />
                  {c.ok ? 'passed' : c.timedOut ? 'timed out' : 'failed'}
                </span>{' '}
                <code>{c.kind === 'check' ? `check:${c.name}` : c.kind === 'verifier' ? `verifier ${c.name}` : 'setup'}</code>
                {c.kind !== 'verifier' && <span className="muted"> · {formatDuration(c.durationMs)}</span>}
                {c.exitCode !== null && c.exitCode !== 0 && <span className="muted"> · exit {c.exitCode}</span>}
                {c.signal && <span className="muted"> · {c.signal}</span>}
                {c.outputTail && (
                  <details open={!c.ok}>
                    <summary>output</summary>
                    <pre>{c.outputTail}</pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {work.changed !== null && (
        <div className="work-changes">
          <h4>
            Changes{' '}
            <span className="muted">
              ({work.changed.length} file{work.changed.length === 1 ? '' : 's'})
            </span>
            {work.outsideScope.length > 0 && (
              <span className="error-text">
                {' '}
                · {work.outsideScope.length} outside the scope: {work.outsideScope.join(', ')}
              </span>
            )}
          </h4>
          {work.diffStat ? <pre className="diffstat">{work.diffStat}</pre> : <p className="muted">No file changed.</p>}
        </div>
      )}
      {work.commit && (
        <p className="work-commit">
          <span className="muted">Committed</span> <code title={work.commit}>{work.commit.slice(0, 12)}</code>
        </p>
      )}
    </div>
  );
}
