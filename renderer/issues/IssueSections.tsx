import type { ReactNode } from 'react';
import type { IssueActivity, IssueDetail } from '../../core/service/api.js';
import { formatHash, hrefToCompare, hrefToRun } from '../app/router.js';
import { RelativeTime } from '../components/Time.js';
import { formatUsd } from '../../core/common/usage-format.js';
import { copyFullId, distinctTailLength, idTail } from '../lib/run-ids.js';
import { ErrorEnvelopeView } from '../run-detail/attempt/ErrorEnvelopeView.js';
import { lineDiff } from './flow-diff.js';
import { changeText, changeTitle, changeTone } from './trend-words.js';
import { formatCount } from '../lib/format.js';

/** The parts of an issue's page besides its header, trend, runs and occurrences. */

const num = (n: number): string => formatCount(n);

/** Counts in the period (with the change) and all time, and what its failed runs cost; `children` are more rows of the period. */
export function IssueFacts({ detail, periodWords, children }: { detail: IssueDetail; periodWords: string; children?: ReactNode }) {
  const { issue, cost } = detail;
  const p = issue.period;
  return (
    <section className="panel issue-facts" aria-labelledby="issue-facts-title">
      <h2 id="issue-facts-title">Counts</h2>
      <dl className="facts">
        <dt>Events, {periodWords}</dt>
        <dd data-testid="issue-period-events">
          <strong>{num(p.events)}</strong>{' '}
          <span className={`issue-change change-${changeTone(p)}`} title={changeTitle(p)}>
            {changeText(p)}
          </span>
          {p.previous && <span className="muted"> (before: {num(p.previous.events)})</span>}
        </dd>
        <dt>Failures, {periodWords}</dt>
        <dd>{num(p.failures)}</dd>
        {children}
        <dt>All time</dt>
        <dd>
          {num(issue.occurrences)} events · {num(issue.failures)} failures · {num(issue.runs)} runs affected · {num(issue.flows)} flow
          {issue.flows === 1 ? '' : 's'}
        </dd>
        <dt>Seen</dt>
        <dd>
          first <RelativeTime ts={issue.firstSeen} />, last <RelativeTime ts={issue.lastSeen} />
        </dd>
        <dt>Cost of its failed runs, all time</dt>
        <dd data-testid="issue-cost">
          {cost.failedRuns === 0
            ? 'no run failed on it'
            : cost.reported === 0
              ? `${num(cost.failedRuns)} failed run${cost.failedRuns === 1 ? '' : 's'}, none reported usage`
              : `${formatUsd(cost.costUsd)}${cost.unknownCostAttempts > 0 ? ' + unknown' : ''} (${num(cost.reported)} of ${num(cost.failedRuns)} failed runs reported usage)`}
        </dd>
      </dl>
    </section>
  );
}

/** The newest occurrence: its envelope, its cause chain, and a link to the attempt it happened in. */
export function LatestOccurrence({ detail }: { detail: IssueDetail }) {
  const latest = detail.latest;
  return (
    <section className="panel issue-latest" aria-labelledby="issue-latest-title">
      <h2 id="issue-latest-title">Latest occurrence</h2>
      {latest === null ? (
        <p className="muted">None left (pruned).</p>
      ) : (
        <>
          <a
            className="button-link"
            data-testid="latest-attempt"
            href={hrefToRun(latest.occurrence.runId, {
              task: latest.occurrence.correlation.task ?? undefined,
              attempt: latest.occurrence.correlation.attempt !== null ? String(latest.occurrence.correlation.attempt) : undefined,
            })}
          >
            Open its attempt in run {idTail(latest.occurrence.runId)} →
          </a>
          <ErrorEnvelopeView
            error={latest.occurrence.error}
            when={latest.occurrence.ts}
            linkRun
            role={latest.occurrence.ending ? 'ended' : latest.occurrence.disposition === 'unhandled' ? 'cause' : null}
          />
          {latest.chain.length > 1 && (
            <>
              <h3>Cause chain</h3>
              <ol className="issue-chain" data-testid="issue-chain" aria-label="The cause chain, this error first">
                {latest.chain.map((e, i) => (
                  <li key={i}>
                    <code>{e.code}</code> {e.message}
                    <span className="muted">
                      {e.correlation.task ? ` · task ${e.correlation.task}` : ''}
                      {e.correlation.attempt !== null ? ` · attempt ${e.correlation.attempt}` : ''}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </section>
  );
}

/** The flows it happened in and its origin. */
export function IssueWhere({ detail }: { detail: IssueDetail }) {
  return (
    <section className="panel issue-where" aria-labelledby="issue-where-title">
      <h2 id="issue-where-title">Flows and origins</h2>
      <ul className="plain-list">
        {detail.flows.map((f) => (
          <li key={f.flow}>
            <a href={formatHash(['runs'], { issue: detail.issue.id, flow: f.flow })}>{f.flowName}</a> <span className="muted mono">{f.flow}</span> ·{' '}
            {num(f.occurrences)} events
          </li>
        ))}
      </ul>
      <p>
        Origin: <code>{detail.origins.join(', ')}</code> <span className="muted">(part of what makes an issue one)</span>
      </p>
    </section>
  );
}

/** A run named by its id's tail, linked; the full id on hover and in a copy. */
function RunRef({ id, tail }: { id: string; tail: number }) {
  return (
    <a href={hrefToRun(id)} title={id} onCopy={(e) => copyFullId(e, id)}>
      run <span className="mono">{idTail(id, tail)}</span>
    </a>
  );
}

/** Whether it was first seen after its flow changed: both versions, their runs, and what changed. */
export function FlowChange({ detail }: { detail: IssueDetail }) {
  const change = detail.flowChange;
  const short = (d: string | null): string => (d === null ? 'unknown' : d.replace(/^sha256:/, '').slice(0, 12));
  let verdict: string;
  if (change === null) verdict = 'Its first occurrence is gone (pruned).';
  else if (change.before === null) verdict = `First seen in the first run of ${change.flowName}.`;
  else if (change.changed === null) verdict = 'Cannot tell: a run’s journal does not name its flow version.';
  else
    verdict = change.changed
      ? `First seen after ${change.flowName} changed.`
      : `${change.flowName} had not changed: first seen on the same version as the run before.`;
  const diff =
    change?.before && change.changed && change.before.text !== null && change.first.text !== null ? lineDiff(change.before.text, change.first.text) : null;
  // The two runs' ids cut where they differ: a bulk import's ids share all but their ends.
  const tail = distinctTailLength(change ? [change.first.runId, ...(change.before ? [change.before.runId] : [])] : []);
  return (
    <section
      className="panel issue-flow-change"
      aria-labelledby="issue-flow-change-title"
      data-testid="flow-change"
      data-changed={String(change?.changed ?? null)}
    >
      <h2 id="issue-flow-change-title">First seen after a flow change?</h2>
      <p>
        <strong>{verdict}</strong>
      </p>
      {change && (
        <dl className="facts">
          <dt>First seen in</dt>
          <dd>
            <RunRef id={change.first.runId} tail={tail} />, version <code>{short(change.first.digest)}</code>
          </dd>
          {change.before && (
            <>
              <dt>The run before</dt>
              <dd>
                <RunRef id={change.before.runId} tail={tail} />, version <code>{short(change.before.digest)}</code>{' '}
                <a href={hrefToCompare(change.before.runId, change.first.runId)}>compare the two runs →</a>
              </dd>
            </>
          )}
        </dl>
      )}
      {diff && (
        <details className="flow-diff">
          <summary>What changed in the flow</summary>
          <pre>
            {diff.map((line, i) => (
              <div key={i} className={`diff-${line.kind}`}>
                <span className="diff-mark">{line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}</span>
                {line.text}
                {line.kind !== 'same' && <span className="visually-hidden"> ({line.kind})</span>}
              </div>
            ))}
          </pre>
        </details>
      )}
    </section>
  );
}

const KIND_WORDS: Record<IssueActivity['kind'], string> = {
  'first-seen': 'First seen',
  new: 'New issue',
  regressed: 'Regressed',
  escalating: 'Escalating',
  resolved: 'Resolved',
  ignored: 'Ignored',
  reopened: 'Reopened',
  alert: 'Alert',
};

function occurrenceLink(cause: string | null) {
  if (!cause) return null;
  const [run] = cause.split('#');
  return run ? <a href={hrefToRun(run)}>{cause}</a> : null;
}

/** State changes with who and when, its first occurrence, regressions, and the alerts delivered about it. */
export function IssueActivityList({ detail }: { detail: IssueDetail }) {
  return (
    <section className="panel issue-activity" aria-labelledby="issue-activity-title">
      <h2 id="issue-activity-title">Activity</h2>
      <ol className="activity-list" data-testid="issue-activity">
        {detail.activity.map((a, i) => (
          <li key={i} data-kind={a.kind}>
            <RelativeTime ts={a.at} /> <strong>{KIND_WORDS[a.kind]}</strong>
            {a.by && <span className="muted"> by {a.by}</span>}
            {a.kind === 'alert' && a.alert && (
              <span className="muted">
                {' '}
                ({a.alert.kind === 'resolve' ? 'follow-up' : 'alert'}, {a.alert.status})
              </span>
            )}
            {a.text && <span>: {a.text}</span>}
            {a.cause && <span className="muted"> · {occurrenceLink(a.cause)}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
