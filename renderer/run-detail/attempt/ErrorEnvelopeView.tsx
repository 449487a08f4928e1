import type { ErrorEnvelope } from '../../../core/service/api.js';
import { hrefToRun } from '../../app/router.js';
import { RelativeTime } from '../../components/Time.js';
import { ROLE_TEXT, type EndingRole } from './attempt-notes.js';

/**
 * A structured error, field by field; context as JSON. Everything is text. `when` is the wall
 * time it was journaled at (the envelope's own timestamp is on its run's clock, which a virtual
 * clock runs ahead of the wall). An error that ended its run, or caused the one that did, says
 * so instead of whether its kind is recoverable: this one was not recovered from.
 */
export function ErrorEnvelopeView({
  error,
  when,
  linkRun = false,
  role = null,
}: {
  error: ErrorEnvelope;
  when: number | null;
  linkRun?: boolean;
  role?: EndingRole | null;
}) {
  const c = error.correlation;
  const hasContext = error.context && Object.keys(error.context).length > 0;
  return (
    <div className="envelope" data-testid="error-envelope">
      <div className="envelope-head">
        <span className={`badge category category-${error.category}`}>{error.category}</span>
        <code className="envelope-code">{error.code}</code>
        <span className="muted">from</span> <code>{error.origin}</code>
        {role ? (
          <span className={`badge ends-run role-${role}`} data-testid="envelope-role">
            {ROLE_TEXT[role]}
          </span>
        ) : (
          <span className={`badge ${error.recoverable ? 'recoverable' : 'fatal'}`}>{error.recoverable ? 'recoverable' : 'not recoverable'}</span>
        )}
      </div>
      <p className="envelope-message">{error.message}</p>
      {error.recovery_hint && (
        <p className="envelope-hint">
          <span className="muted">Hint:</span> {error.recovery_hint}
        </p>
      )}
      <dl className="envelope-fields">
        <dt>When</dt>
        <dd>{when !== null ? <RelativeTime ts={when} /> : <span className="muted">—</span>}</dd>
        <dt>Where</dt>
        <dd className="mono">
          {c.flow && <span>flow {c.flow}</span>}
          {c.run && (
            <span>
              {' › '}run{' '}
              {linkRun ? (
                <a href={hrefToRun(c.run, c.task ? { task: c.task, attempt: c.attempt !== null ? String(c.attempt) : undefined } : undefined)}>{c.run}</a>
              ) : (
                c.run
              )}
            </span>
          )}
          {c.step !== null && <span> › step {c.step}</span>}
          {c.task && <span> › task {c.task}</span>}
          {c.attempt !== null && <span> › attempt {c.attempt}</span>}
        </dd>
      </dl>
      {hasContext && (
        <details className="envelope-context">
          <summary>Context</summary>
          <pre className="json">{JSON.stringify(error.context, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
