import type { ErrorSpec, TaskScript } from '../../core/store/testing/journal-builder.js';
import { JournalBuilder } from '../../core/store/testing/journal-builder.js';
import { openStore } from '../../core/store/index.js';

/**
 * A finished run whose retry timeline is much wider than the window: step 1 one task, step 2 a
 * fan-out of `tasks` tasks run one after another, each failing `failures` times before it
 * succeeds (every 4th task fails for good, caught, unless `failsForGood` says otherwise), so every attempt is a point of interest of
 * its own. Written straight into the database `serve` will open.
 */
export async function seedWideRun(
  dbPath: string,
  options: { runId: string; tasks: number; failures: number; start: number; failsForGood?: (task: number) => boolean },
): Promise<void> {
  const failsForGood = options.failsForGood ?? ((i: number) => i % 4 === 3);
  const limited: ErrorSpec = { code: 'RUNTIME_RATE_LIMIT', message: 'upstream said 429' };
  const fanOut: TaskScript[] = Array.from({ length: options.tasks }, (_, i) => ({
    name: `shard ${i}`,
    attempts: failsForGood(i)
      ? Array.from({ length: options.failures + 1 }, () => limited)
      : [...Array.from({ length: options.failures }, () => limited), 'ok'],
    caught: failsForGood(i),
    delayMs: 20_000 + 5_000 * (i % 3),
  }));
  const journal = new JournalBuilder(options.runId, { start: options.start, tick: 400, flow: 'examples/04-parallel-fan-out.prose', flowName: 'wide fan-out' })
    .start()
    .runStep([{ name: 'plan', attempts: ['ok'] }])
    .runStep(fanOut)
    .complete();
  const store = await openStore({ path: dbPath });
  try {
    await store.appendEvents(journal.events);
  } finally {
    await store.close();
  }
}
