import type { RunSummary, TaskView } from '../../core/service/api.js';
import { chainParts, endingKind, endingSentence, factsOf, type ChainPart } from '../lib/ending-story.js';

/** Asks the timeline to select an attempt, scroll it into view and focus it. */
export type ShowAttempt = (taskId: string, attempt: number | null) => void;

function AttemptButton({ where, onShow }: { where: NonNullable<ChainPart['where']>; onShow: ShowAttempt }) {
  return (
    <button type="button" className="link ending-attempt" onClick={() => onShow(where.taskId, where.attempt)} title="show this attempt in the retry timeline">
      {where.label}
    </button>
  );
}

/**
 * Why the run ended (rule 16), in place of its newest error: "Failed because" the ending
 * error, the attempt it happened in (one click to it in the timeline), and its cause chain as a
 * short list; a cancelled run says what cancelled it, an interrupted one that its host died. A
 * live or completed run has none.
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
  const parts = chainParts(ending, factsOf(tasks));
  const head = parts[0];
  // The attempt to show: the head's, or for a retry limit the attempt it gave up after.
  const target = parts.find((p) => p.where !== null)?.where ?? null;
  const single = parts.length <= 1;
  return (
    <section className="run-ending run-ending-failed" aria-label="Why the run failed" data-testid="run-ending" data-kind="failed">
      <p className="run-ending-head">
        <span className="run-ending-label">Failed because</span> <code className="ending-code" data-testid="ending-code">{ending.code}</code>
        {single && head?.end && <span className="chain-what"> {head.end}</span>}
        {target && (
          <>
            {' in '}
            <AttemptButton where={target} onShow={onShowAttempt} />
          </>
        )}
        {single && head?.rethrown && <span className="chain-note"> (caught, rethrown)</span>}
      </p>
      {!single && (
        <ol className="ending-chain" aria-label="Its cause chain, the ending error first" data-testid="ending-chain">
          {parts.map((part, i) => (
            <li key={i} data-code={part.code}>
              {part.lead && <span className="chain-lead">{part.lead} </span>}
              <span className="chain-what">{part.what}</span>
              {part.where && (
                <>
                  {' in '}
                  <AttemptButton where={part.where} onShow={onShowAttempt} />
                </>
              )}
              {part.rethrown && <span className="chain-note"> (caught, rethrown)</span>}
            </li>
          ))}
        </ol>
      )}
      <p className="run-ending-message" data-testid="ending-message">
        {ending.message}
      </p>
    </section>
  );
}
