import { VirtualClock } from '../../core/base/clock.js';
import { FlowRun } from '../../core/engine/run/run.js';
import { checkFlow } from '../../core/flow/check/check.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from '../../core/runtimes/runtime.js';
import { createDurableSink } from '../../core/store/sink/sink.js';
import { openSqliteStore } from '../../core/store/sqlite/store.js';
import type { Measurement } from '../harness/measure.js';
import { removeDb, tempPath } from '../store/store-baseline.js';

/**
 * Journal size against what a run produced: one session answers 1 MiB, then
 * 30 more sessions run. Checkpoints that stored every channel at every step made this a 68.6 MB
 * database (measured before the change, `hivewatch run` with a command agent printing 1 MiB);
 * the ratio here is the database's bytes for the run over the bytes its sessions produced.
 */

const OUTPUT_BYTES = 1 << 20;
const LATER_SESSIONS = 30;

class BigThenSmall implements SessionRuntime {
  readonly name = 'bench';
  produced = 0;
  execute(request: AttemptRequest): Promise<AttemptResult> {
    const output = request.prompt === 'produce' ? 'a'.repeat(OUTPUT_BYTES) : `done: ${request.prompt}`;
    this.produced += output.length;
    return Promise.resolve({ kind: 'succeeded', output });
  }
}

export async function checkpointBenchmarks(): Promise<Measurement[]> {
  const checked = checkFlow(`let data = session "produce"\nrepeat ${LATER_SESSIONS} as i:\n  session "step {i}"\n`, 'bench.prose');
  if (!checked.plan) throw new Error('checkpoint bench flow does not check');
  const path = tempPath('checkpoints');
  const store = openSqliteStore({ path });
  try {
    const runtime = new BigThenSmall();
    const clock = new VirtualClock();
    const sink = createDurableSink({ appendEvents: async (events) => store.appendEvents(events) });
    const result = await new FlowRun({ plan: checked.plan, registry: { forAgent: () => runtime }, sink, clock, defaultAgent: 'noop' }).start();
    await sink.close();
    if (result.status !== 'completed') throw new Error(`checkpoint bench run ${result.status}`);
    store.database.pragma('wal_checkpoint(TRUNCATE)');
    store.database.exec('VACUUM');
    const bytes = store.stats().bytes;
    const ratio = bytes / runtime.produced;
    return [
      {
        name: `journal bytes per run: 1 MiB output, then ${LATER_SESSIONS} sessions`,
        value: bytes / 1e6,
        unit: 'MB',
        baseline: runtime.produced / 1e6,
        ratio,
        target: '≤ 8× the bytes produced (was 65× with whole-state checkpoints)',
        pass: ratio <= 8,
        note: 'the output is kept as the task result, the write, the checkpoint delta and their rows: a constant number of copies, not one per step',
      },
    ];
  } finally {
    store.close();
    removeDb(path);
  }
}
