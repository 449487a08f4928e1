import type { HivewatchEvent } from '../../../core/service/api.js';
import { attemptKey } from './attempt-work.js';

/**
 * What the journal says an attempt was asked and answered, read from the
 * run's events: attemptStarted carries the rendered prompt or a command runtime's argv, the
 * attempt's end its output and how its process ended. Journals from before these fields give
 * nulls, which the inspector says in words. Pure, for tests.
 */

type AttemptEnd = Extract<HivewatchEvent, { type: 'attemptSucceeded' | 'attemptFailed' }>;
export type AttemptEndTrace = NonNullable<AttemptEnd['trace']>;

export interface AttemptInspection {
  prompt: string | null;
  argv: string[] | null;
  /** null while the attempt runs, or when the runtime reported neither output nor a process. */
  trace: AttemptEndTrace | null;
  durationMs: number | null;
}

export function indexAttemptInspections(events: readonly HivewatchEvent[]): Map<string, AttemptInspection> {
  const index = new Map<string, AttemptInspection>();
  for (const e of events) {
    if (e.type === 'attemptStarted') {
      index.set(attemptKey(e.taskId, e.attempt), { prompt: e.prompt ?? null, argv: e.argv ?? null, trace: null, durationMs: null });
    } else if (e.type === 'attemptSucceeded' || e.type === 'attemptFailed') {
      const seen = index.get(attemptKey(e.taskId, e.attempt));
      if (seen) {
        seen.trace = e.trace ?? null;
        seen.durationMs = e.durationMs;
      }
    }
  }
  return index;
}

const SAFE_ARG = /^[\w@%+=:,./-]+$/;

/** argv as one line an operator can paste into a POSIX shell: arguments quoted where needed. */
export function commandLineText(argv: readonly string[]): string {
  return argv.map((arg) => (arg !== '' && SAFE_ARG.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/** How the attempt's process ended, in words: "exit 0", "exit 3", "killed by SIGKILL"; null without a process. */
export function exitText(trace: AttemptEndTrace | null): string | null {
  if (!trace) return null;
  if (trace.signal) return `killed by ${trace.signal}`;
  if (trace.exitCode !== null) return `exit ${trace.exitCode}`;
  return null;
}
