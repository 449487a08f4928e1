import type { RunSummary, TaskView } from '../../core/service/api.js';
import { chainParts, endingKind, endingSentence, factsOf, type ChainPart } from '../lib/ending-story.js';
import { failureHeadline, rootCauseIndex } from '../lib/failure-headline.js';

/** Asks the timeline to select an attempt, scroll it into view and focus it. */
export type ShowAttempt = (taskId: string, attempt: number | null) => void;

function AttemptButton({ where, onShow }: { where: NonNullable<ChainPart['where']>; onShow: ShowAttempt }) {
  return (
    <button
      type="button"
      className="link ending-attempt"
      onClick={() => onShow(where.taskId, where.attempt)}
      title={`${where.template !== undefined ? `prompt as written: ${where.template}\n` : ''}show this attempt in the retry timeline`}
    >
      {where.label}
    </button>
  );
}

/** The cause chain as a list, head first, when links other than the root cause name attempts of their own. */
function ChainList({ parts, onShow }: { parts: readonly ChainPart[]; onShow: ShowAttempt }) {
  return (
    <ol className="ending-chain" aria-label="Its cause chain, the ending error first" data-testid="ending-chain">
      {parts.map((part, i) => (
        <li key={i} data-code={part.code}>
          {part.lead && <span className="chain-lead">{part.lead} </span>}
          <span className="chain-what">{part.what}</span>
          {part.where && (
            <>
              {' in '}
              <AttemptButton where={part.where} onShow={onShow} />
            </>
          )}
          {part.rethrown && <span className="chain-note"> (caught, rethrown)</span>}
        </li>
      ))}
    </ol>
  );
}

/**
 * Why the run ended (rule 16), in place of its newest error: "Failed because" the root cause
 * (its code, process end and message) and how the run gave up on it ("gave up after 3
 * attempts"), the attempt it happened in (one click to it in the timeline), and the ending
 * error's own code when it is another (a retry limit, a throw). A cancelled run says what
 * cancelled it, an interrupted one that its host died. A live or completed run has none.
 */
export function EndingBanner({ run, tasks, onShowAttempt }: { run: RunSummary; tasks: readonly TaskView[]; onShowAttempt: ShowAttempt }) {
  const kind = endingKind(run);
  const ending = run.endingError;
  if (kind === null || ending === null) return null;
  if (kind !== 'failed') {
    return (
      <p className={`run-ending run-ending-${kind}`} data-testid="run-ending" data-kind={kind}>
        {endingSentence(kind, ending)}
      </p>
    );
  }
  const facts = factsOf(tasks);
  const h = failureHeadline(ending, facts);
  const parts = chainParts(ending, facts);
  const root = rootCauseIndex(ending.chain);
  // The list adds what the headline cannot: a click to each other attempt the chain names.
  const listed = parts.some((p, i) => i !== root && p.where !== null);
  return (
    <section className="run-ending run-ending-failed" aria-label="Why the run failed" data-testid="run-ending" data-kind="failed">
      <p className="run-ending-head" data-testid="ending-headline">
        <span className="run-ending-label">Failed because</span>{' '}
        <code className="ending-code" data-testid="ending-code">
          {h.code}
        </code>
        {h.end && <span className="chain-what"> {h.end}</span>}
        {h.message && (
          <span className="run-ending-message" data-testid="ending-message">
            {' · '}
            {h.message}
          </span>
        )}
        {h.gaveUp && (
          <span className="ending-gave-up" data-testid="ending-gave-up">
            {' — '}
            {h.gaveUp}
          </span>
        )}
      </p>
      {(h.where || h.endedAs) && (
        <p className="run-ending-where">
          {h.where && (
            <>
              {'In '}
              <AttemptButton where={h.where} onShow={onShowAttempt} />
            </>
          )}
          {h.endedAs && (
            <span className="muted" data-testid="ending-ended-as">
              {h.where ? ' · ' : ''}the run ended with <code>{h.endedAs}</code>
            </span>
          )}
        </p>
      )}
      {h.after.length > 0 && (
        <ul className="ending-after" data-testid="ending-after">
          {h.after.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {listed && <ChainList parts={parts} onShow={onShowAttempt} />}
    </section>
  );
}
