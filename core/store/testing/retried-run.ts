import type { HivewatchEvent } from '../../base/events.js';
import { JournalBuilder } from './journal-builder.js';

const CRASH = { code: 'RUNTIME_CRASHED' as const, message: 'runtime fake crashed: exit 3', origin: 'runtime:fake' };

/**
 * A run of `user/api.prose` starting at `at` whose one task crashes `n` times, a second apart,
 * then succeeds (a recovered run's retried attempts): `n` occurrences of one issue in that minute.
 */
export function retriedRun(id: string, at: number, n: number): HivewatchEvent[] {
  return new JournalBuilder(id, { start: at, flow: 'user/api.prose', flowName: 'api' })
    .start()
    .runStep([{ attempts: [...Array.from({ length: n }, () => CRASH), 'ok'], delayMs: 1_000 }])
    .complete().events;
}
