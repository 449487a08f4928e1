import { spawnSync } from 'node:child_process';
import type { HivewatchEvent } from '../../base/events.js';
import type { ExternalSessionRow } from '../queries/external.js';
import { JournalBuilder } from './journal-builder.js';

/**
 * Values no column takes as they are, in a run journal: what the conformance
 * suite stores on every engine and reads back. The text with invalid bytes comes from a real
 * subprocess, decoded the way the runtimes decode an agent's output.
 */

export const MEGABYTE = 1 << 20;
/** A number that is no BIGINT: what `1234…890` (40 digits) becomes in JavaScript. */
export const FORTY_DIGITS = Number('1234567890123456789012345678901234567890');

/** What a subprocess printed: NUL, bytes that are no UTF-8 (decoded as the runtimes do: UTF-8, lossy). */
function subprocessOutput(): { utf8: string; utf16: string } {
  const printed = spawnSync('/bin/sh', ['-c', "printf 'fine\\000bytes \\377\\376 end'"]);
  // The same bytes read as UTF-16LE (as an agent's misdeclared encoding would be): a lone surrogate.
  const pairs = spawnSync('/bin/sh', ['-c', "printf 'A\\000\\000\\330B\\000'"]);
  if (printed.status !== 0 || pairs.status !== 0) throw new Error('printf failed');
  return { utf8: printed.stdout.toString('utf8'), utf16: pairs.stdout.toString('utf16le') };
}

export interface HostileJournal {
  events: HivewatchEvent[];
  output: string;
  message: string;
  longFlow: string;
  longOrigin: string;
  longTaskName: string;
}

type Patch = (event: HivewatchEvent) => Record<string, unknown>;

function patched(events: readonly HivewatchEvent[], patches: Partial<Record<HivewatchEvent['type'], Patch>>): HivewatchEvent[] {
  return events.map((event) => {
    const patch = patches[event.type];
    return patch ? ({ ...event, ...patch(event) } as HivewatchEvent) : event;
  });
}

/** One run whose events carry every hostile value, in the fields that reach indexed, text and BIGINT columns. */
export function hostileJournal(runId: string): HostileJournal {
  const { utf8, utf16 } = subprocessOutput();
  const longFlow = `flows/${'f'.repeat(MEGABYTE)}.prose`;
  const longOrigin = `runtime:${'o'.repeat(MEGABYTE)}`;
  const longTaskName = `task ${'n'.repeat(MEGABYTE)}`;
  const message = `failed with ${utf16} and \udc00 and ${utf8}`;
  const built = new JournalBuilder(runId, { flow: longFlow, flowName: `name \u0000 ${utf16}` })
    .start()
    .runStep([{ name: longTaskName, agent: 'a'.repeat(MEGABYTE), attempts: [{ code: 'RUNTIME_CRASHED', origin: longOrigin, message }, 'ok'] }])
    .complete();
  const events = patched(built.events, {
    taskStarted: () => ({ maxAttempts: FORTY_DIGITS }),
    attemptFailed: () => ({ durationMs: Number.NaN }),
    errorOccurred: (e) => {
      const error = (e as Extract<HivewatchEvent, { type: 'errorOccurred' }>).error;
      return { error: { ...error, timestamp: FORTY_DIGITS, context: { ratio: Number.NaN, raw: utf8 } } };
    },
    retryScheduled: () => ({ delayMs: 1e308, nextAttemptAt: Number.POSITIVE_INFINITY }),
    attemptSucceeded: () => ({ durationMs: 1e308 }),
    taskSucceeded: () => ({ output: utf8, ordinal: -0 }),
  });
  return { events, output: utf8, message, longFlow, longOrigin, longTaskName };
}

/** An agent session's bookkeeping with a 1 MB session id (what an exporter may send as `session.id`). */
export function hostileSession(runId: string): ExternalSessionRow {
  const sessionId = `${'s'.repeat(MEGABYTE)}\u0000`;
  return {
    sessionKey: `runtime:claude-code\n${sessionId}`,
    runId,
    origin: 'runtime:claude-code',
    sessionId,
    parent: { runId: 'p'.repeat(MEGABYTE), taskId: '1:0', attempt: 1e308 },
    lastEventAt: FORTY_DIGITS,
    idle: false,
    openTask: `prompt-1-${'q'.repeat(MEGABYTE)}`,
    openTaskAttempts: 2.5,
    taskCount: 1,
    lastSeq: 0,
  };
}
