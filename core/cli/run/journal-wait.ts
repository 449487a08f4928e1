import type { HivewatchService } from '../../service/service.js';
import { isDatabaseAway } from '../../service/wire-error.js';
import type { CliIo } from '../io.js';

/**
 * The end of `hivewatch run` (and resume, retry): the run's last events must reach the journal
 * before the process exits, or the run stays `running` in the database until some later start
 * marks it interrupted (hosts that exited mid-outage left their runs open).
 *
 * While the database is away (the store's `unavailable`) the CLI keeps trying, for up to
 * `waitMs`, saying so once; Ctrl-C stops waiting (the next start then marks the run interrupted).
 * Any other write failure (a full SQLite disk) is reported at once, as before.
 */

const RETRY_PAUSE_MS = 1_000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The pause, cut short by the signal. */
function untilAborted(pausing: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return pausing;
  return Promise.race([pausing, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
}

export interface JournalWait {
  waitMs: number;
  /** The wall clock and the pause between tries (tests inject both). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Aborted by a Ctrl-C: stop waiting (the next start marks the run interrupted). */
  signal?: AbortSignal;
}

/** Writes what the journal still holds; true when it is all journaled. */
export async function journalLastEvents(service: Pick<HivewatchService, 'flushJournal'>, io: CliIo, runId: string | null, wait: JournalWait): Promise<boolean> {
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? pause;
  const deadline = now() + wait.waitMs;
  const run = runId ?? '(not started)';
  let waiting = false;
  for (;;) {
    try {
      await service.flushJournal();
      if (waiting) io.err(`hivewatch: the database is back: the last events of run ${run} are journaled\n`);
      return true;
    } catch (error) {
      const left = deadline - now();
      if (!isDatabaseAway(error) || left <= 0 || wait.signal?.aborted === true) {
        // The buffered events die with this process; the run stays open in the journal until the
        // next start marks it interrupted, and resume continues from its last durable checkpoint.
        io.err(
          `hivewatch: ${messageOf(error)}\n  the journal keeps everything up to its last durable step; once the database can be written, ` +
            `any hivewatch command marks run ${run} interrupted and \`hivewatch resume ${runId ?? ''}\` continues it\n`,
        );
        return false;
      }
      if (!waiting) {
        waiting = true;
        io.err(
          `hivewatch: ${messageOf(error)}\n  waiting up to ${Math.ceil(left / 1000)} s for the database to journal the last events of run ${run} ` +
            '(Ctrl-C stops waiting; the run is then marked interrupted by the next hivewatch start)\n',
        );
      }
      await untilAborted(sleep(Math.min(RETRY_PAUSE_MS, left)), wait.signal);
    }
  }
}
