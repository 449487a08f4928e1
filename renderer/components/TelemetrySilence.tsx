import type { RunSummary, RunTelemetrySilence } from '../../core/service/api.js';
import { silenceWords } from '../../core/common/telemetry-silence.js';
import { formatAbsolute } from '../lib/format.js';
import { useNow } from '../lib/use-now.js';

/**
 * A live run whose telemetry source went silent (docs/otel.md "Telemetry health"): its session, or
 * the CLI of a preset attempt, has sent nothing for longer than twice its exporter's interval. In
 * the Runs list a line under the flow, in the run header a notice, both counting on live; the words
 * are the CLI's (core/common/telemetry-silence.ts).
 */

/** The silence a live run shows, when it has one. */
export function silenceOfRun(run: RunSummary): RunTelemetrySilence | null {
  return (run.status === 'running' || run.status === 'cancelling') && run.telemetrySilence ? run.telemetrySilence : null;
}

const wordsAt = (silence: RunTelemetrySilence, now: number): string =>
  silenceWords({ ...silence, silentMs: Math.max(silence.silentMs, now - silence.silentSince) });

const whose = (silence: RunTelemetrySilence): string => {
  const agent = silence.origin.replace(/^runtime:/, '');
  return silence.taskId === null ? `its ${agent} exporter` : `the ${agent} CLI of task ${silence.taskId}, attempt ${silence.attempt}`;
};

const titleOf = (silence: RunTelemetrySilence): string =>
  silence.lastSeenAt === null
    ? `Nothing received from ${whose(silence)}`
    : `Nothing received from ${whose(silence)} since ${formatAbsolute(silence.lastSeenAt)}`;

export function SilenceLine({ silence }: { silence: RunTelemetrySilence }) {
  const now = Math.max(useNow(), Date.now());
  return (
    <span className="silence-line" title={titleOf(silence)} data-testid="telemetry-silence">
      {wordsAt(silence, now)}
    </span>
  );
}

/** The run header's line: "No telemetry for 4 min (expected every 5 s) from …". */
export function SilenceNotice({ silence }: { silence: RunTelemetrySilence }) {
  const now = Math.max(useNow(), Date.now());
  const words = wordsAt(silence, now);
  return (
    <p className="silence-notice" role="status" aria-live="polite" data-testid="telemetry-silence-notice">
      <span className="silence-icon" aria-hidden="true" />
      {words.charAt(0).toUpperCase() + words.slice(1)} from {whose(silence)}
      {silence.lastSeenAt !== null && (
        <>
          , last at <time dateTime={new Date(silence.lastSeenAt).toISOString()}>{formatAbsolute(silence.lastSeenAt)}</time>
        </>
      )}
      {silence.lastSeenAt === null
        ? '. Its exporter may not have started (a CLI that has not logged anything yet sends nothing either): nothing has arrived from it.'
        : '. Its exporter may have stopped (a quiet agent sends nothing either): the figures here are what arrived before.'}
    </p>
  );
}
