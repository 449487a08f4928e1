import type { HivewatchEvent } from '../../base/events.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { isRefusedWrite } from './write-errors.js';

/**
 * What the durable sink does with a batch the database refused for what it holds: no retry would write it, and while it sat at the front of the buffer nothing after it
 * (of any run) was journaled, the run it belonged to stayed `running`, and a "Check disk space"
 * hint named the wrong cause.
 *
 * The batch is written again run by run, so every other run's events land; the refused run's
 * events are written one at a time up to the one the database refuses. In its place the run's
 * journal ends: an `errorOccurred` and a `runFailed` with SYSTEM_EVENT_REJECTED, whose message
 * says which event was refused and why, and whose context keeps the refused event (as JSON text,
 * its first REFUSED_EVENT_KEPT characters). The run is then failed in the journal, resumable from
 * its last checkpoint; what its host appends after that is not journaled (the sink drops it) and
 * the run's own sink refuses its next flush, so the engine stops the run.
 */

/** What the sink needs of the store. */
export interface EventAppender {
  appendEvents(events: readonly HivewatchEvent[]): Promise<void>;
}

/** How much of a refused event the ending error keeps (its JSON text). */
const REFUSED_EVENT_KEPT = 64_000;

export interface Refusal {
  runId: string;
  /** The error the run's journal ends with (and its host's flush rejects with). */
  error: HivewatchError;
  /** The events that end the run's journal (`errorOccurred`, `runFailed`), in place of the refused one. */
  ending: HivewatchEvent[];
  /** Whether that ending is journaled (or waits in the buffer for the database); false: the database refused it too. */
  journaled: boolean;
}

export interface WrittenAround {
  /** Runs whose journal was ended here. */
  refusals: Refusal[];
  /** Events not written because the database went away meanwhile (`away` says why): retried like any failed write. */
  unwritten: HivewatchEvent[];
  away: { error: unknown } | null;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function refusalError(event: HivewatchEvent, cause: unknown): HivewatchError {
  const json = JSON.stringify(event);
  const kept = json.length > REFUSED_EVENT_KEPT ? `${json.slice(0, REFUSED_EVENT_KEPT)}… (${json.length - REFUSED_EVENT_KEPT} more characters)` : json;
  const ref = event as unknown as { step?: unknown; taskId?: unknown; attempt?: unknown };
  return new HivewatchError('SYSTEM_EVENT_REJECTED', {
    message: `the database refused event seq ${event.seq} (${event.type}) of run ${event.runId}: ${describe(cause)}`,
    origin: 'system',
    timestamp: event.ts,
    context: { seq: event.seq, type: event.type, reason: describe(cause), event: kept },
    correlation: {
      run: event.runId,
      step: typeof ref.step === 'number' ? ref.step : null,
      task: typeof ref.taskId === 'string' ? ref.taskId : null,
      attempt: typeof ref.attempt === 'number' ? ref.attempt : null,
    },
    cause,
  });
}

/** The run's last two events, in place of the refused one: the error, and the run failing with it. */
function endingEvents(refused: HivewatchEvent, error: HivewatchError): HivewatchEvent[] {
  const envelope = error.toEnvelope();
  const { runId, seq, ts } = refused;
  const step = envelope.correlation.step;
  return [
    { runId, seq, ts, type: 'errorOccurred', error: envelope, caught: false, retrying: false, step, ordinal: null, taskId: null },
    {
      runId,
      seq: seq + 1,
      ts,
      type: 'runFailed',
      error: envelope,
      chain: [
        {
          seq,
          code: envelope.code,
          category: envelope.category,
          origin: envelope.origin,
          message: envelope.message,
          step,
          taskId: null,
          attempt: null,
          how: null,
        },
      ],
    },
  ];
}

function byRun(events: readonly HivewatchEvent[]): HivewatchEvent[][] {
  const runs = new Map<string, HivewatchEvent[]>();
  for (const event of events) {
    const own = runs.get(event.runId);
    if (own) own.push(event);
    else runs.set(event.runId, [event]);
  }
  return [...runs.values()];
}

type Attempt = { kind: 'written' } | { kind: 'refused' | 'away'; error: unknown };

async function tryAppend(store: EventAppender, events: readonly HivewatchEvent[]): Promise<Attempt> {
  try {
    await store.appendEvents(events);
    return { kind: 'written' };
  } catch (error) {
    return { kind: isRefusedWrite(error) ? 'refused' : 'away', error };
  }
}

interface RunOutcome {
  refusal: Refusal | null;
  /** Left to retry (the database went away), with why. */
  unwritten: HivewatchEvent[];
  away: { error: unknown } | null;
}

const WRITTEN: RunOutcome = { refusal: null, unwritten: [], away: null };

/** Writes one run's events up to the refused one, then the run's ending in its place. */
async function writeRun(store: EventAppender, events: readonly HivewatchEvent[]): Promise<RunOutcome> {
  const whole = await tryAppend(store, events);
  if (whole.kind === 'written') return WRITTEN;
  if (whole.kind === 'away') return { refusal: null, unwritten: [...events], away: { error: whole.error } };
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i] as HivewatchEvent;
    const one = await tryAppend(store, [event]);
    if (one.kind === 'written') continue;
    if (one.kind === 'away') return { refusal: null, unwritten: events.slice(i), away: { error: one.error } };
    const error = refusalError(event, one.error);
    const ending = endingEvents(event, error);
    const ended = await tryAppend(store, ending);
    const refusal = { runId: event.runId, error, ending, journaled: ended.kind !== 'refused' };
    return ended.kind === 'away' ? { refusal, unwritten: ending, away: { error: ended.error } } : { refusal, unwritten: [], away: null };
  }
  // Refused whole, yet every event was written by itself: nothing was wrong with any one of them.
  return WRITTEN;
}

/**
 * Writes a batch the store refused (`isRefusedWrite`) around the events it refuses. Resolves with
 * the runs whose journal it ended, and what it could not write because the database went away.
 */
export async function writeAround(store: EventAppender, batch: readonly HivewatchEvent[]): Promise<WrittenAround> {
  const runs = byRun(batch);
  const refusals: Refusal[] = [];
  for (let r = 0; r < runs.length; r += 1) {
    const outcome = await writeRun(store, runs[r] as HivewatchEvent[]);
    if (outcome.refusal) refusals.push(outcome.refusal);
    if (outcome.away !== null) return { refusals, unwritten: [...outcome.unwritten, ...runs.slice(r + 1).flat()], away: outcome.away };
  }
  return { refusals, unwritten: [], away: null };
}
