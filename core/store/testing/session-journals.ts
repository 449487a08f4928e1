import type { HivewatchEvent } from '../../base/events.js';
import { seededRandom } from '../../testing/seeded-random.js';
import { claudeSessionStarted, envelope, JournalBuilder } from './journal-builder.js';

/**
 * Agent sessions as OTLP reports them (one task, a prompt an attempt): their occurrences stay
 * pending for as long as they run, a quiet period settles them (`externalRunIdle`, failed by its
 * last prompt or not) and a new prompt reopens them. What the writers' handling of a long
 * session's pending occurrences is tested with (sqlite/pending-occurrences.test.ts, the replay
 * parity suite).
 */

const LIMITED = { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code', message: 'rate limited' } as const;
const REF = { step: 1, ordinal: 0, taskId: 'prompt-1' } as const;

/** A session's first events: it starts, and its one task runs. */
export function claudeSession(runId: string): JournalBuilder {
  const builder = new JournalBuilder(runId);
  builder.push(claudeSessionStarted(runId));
  builder.push({ type: 'stepStarted', step: 1, frontier: [] });
  builder.push({ type: 'taskStarted', ...REF, name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 });
  return builder;
}

function correlation(builder: JournalBuilder, attempt: number | null) {
  return { project: null, flow: 'external:claude-code', run: builder.runId, step: 1, task: REF.taskId, attempt };
}

/** One failed prompt: its attempt and its occurrence, which stays pending. */
export function failedPrompt(builder: JournalBuilder, attempt: number): void {
  const error = envelope(LIMITED, correlation(builder, attempt), 1);
  builder.push({ type: 'attemptStarted', ...REF, attempt });
  builder.push({ type: 'attemptFailed', ...REF, attempt, durationMs: 10, error });
  builder.push({ type: 'errorOccurred', error, caught: false, retrying: false, ...REF });
}

function succeededPrompt(builder: JournalBuilder, attempt: number): void {
  builder.push({ type: 'attemptStarted', ...REF, attempt });
  builder.push({ type: 'attemptSucceeded', ...REF, attempt, durationMs: 10 });
}

/** The session goes quiet: failed by the prompt of `failedAttempt` (its occurrence ends the run), or not failed (null). */
export function quiet(builder: JournalBuilder, failedAttempt: number | null): void {
  const failed = failedAttempt === null ? {} : { error: envelope(LIMITED, correlation(builder, failedAttempt), 1) };
  builder.push({ type: 'externalRunIdle', quietMs: 60_000, lastEventAt: 1, ...failed });
}

/**
 * Sessions of random length: prompts that fail or succeed, quiet periods (failed when the last
 * prompt failed) and reopenings; some still running at the end. Deterministic in `seed`.
 */
export function randomSessions(seed: number, count: number): HivewatchEvent[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, s) => {
    const builder = claudeSession(`session-${seed}-${s}`);
    let attempt = 0;
    let lastFailed: number | null = null;
    const periods = 1 + Math.floor(random() * 3);
    for (let period = 0; period < periods; period += 1) {
      if (period > 0) builder.push({ type: 'externalRunReopened', idleSince: 1 });
      for (let p = Math.floor(random() * 6); p >= 0; p -= 1) {
        attempt += 1;
        const fails = random() < 0.6;
        if (fails) failedPrompt(builder, attempt);
        else succeededPrompt(builder, attempt);
        lastFailed = fails ? attempt : null;
      }
      const stillRunning = period === periods - 1 && random() < 0.3;
      if (!stillRunning) quiet(builder, lastFailed);
    }
    return builder.events;
  });
}
