import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../../base/errors/taxonomy.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from '../../runtimes/runtime.js';
import { seededRandom } from '../../testing/seeded-random.js';

/**
 * A test runtime that misbehaves on purpose. Attempts do not end in the order they started: each
 * macrotask, one pending attempt chosen by a seeded generator ends. A cancelled attempt may still
 * report what it did (a process that finished just as the signal came). Runs are reproducible
 * per seed, and over many seeds every settle order shows up — what a quiet machine never shows.
 */

/** What one attempt of a session does. */
export type ScriptedOutcome = { kind: 'ok'; output: string } | { kind: 'fail'; code: ErrorCode; message: string };

export interface RacingRuntimeOptions {
  seed: number;
  /** The outcome of attempt `attempt` (1-based) of the session with this ordinal and prompt. */
  outcome: (ordinal: number, attempt: number, prompt: string) => ScriptedOutcome;
  /** Chance (0..1) that an aborted attempt reports its own outcome instead of `cancelled`. Default 0.3. */
  lateResult?: number;
}

interface Pending {
  result: AttemptResult;
  settle: (result: AttemptResult) => void;
  aborted: boolean;
}

/** The origin a scripted error gets: one the error model allows for its category. */
function originFor(code: ErrorCode): string {
  if (code.startsWith('RUNTIME_')) return 'runtime:racing';
  if (code.startsWith('AGENT_')) return 'agent:racing';
  if (code.startsWith('SCOPE_')) return 'scope_enforcer';
  if (code.startsWith('VERIFICATION_')) return 'check:racing';
  return code.split('_')[0]?.toLowerCase() ?? 'system';
}

export function scriptedResult(outcome: ScriptedOutcome): AttemptResult {
  if (outcome.kind === 'ok') return { kind: 'succeeded', output: outcome.output };
  return { kind: 'failed', error: new HivewatchError(outcome.code, { message: outcome.message, origin: originFor(outcome.code) }) };
}

export class RacingRuntime implements SessionRuntime {
  readonly name = 'racing';
  private readonly random: () => number;
  private readonly pool: Pending[] = [];
  private scheduled = false;
  /** Every attempt started, in order: `<ordinal>#<attempt>`. */
  readonly started: string[] = [];

  constructor(private readonly options: RacingRuntimeOptions) {
    this.random = seededRandom(options.seed);
  }

  execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    this.started.push(`${request.ordinal}#${request.attempt}`);
    const result = scriptedResult(this.options.outcome(request.ordinal, request.attempt, request.prompt));
    return new Promise((settle) => {
      const entry: Pending = { result, settle, aborted: false };
      const onAbort = (): void => {
        entry.aborted = true;
        if (this.random() >= (this.options.lateResult ?? 0.3)) entry.result = { kind: 'cancelled' };
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      this.pool.push(entry);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const index = Math.floor(this.random() * this.pool.length);
      const [entry] = this.pool.splice(index, 1);
      entry?.settle(entry.result);
      if (this.pool.length > 0) this.schedule();
    });
  }
}
