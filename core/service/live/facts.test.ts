import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { createHivewatchService } from '../service.js';
import { Collector, EXAMPLES_DIR, TERMINAL } from '../testing.js';

/**
 * What the window receives (docs/semantics.md "Event order within a step", W7): through the
 * service's live subscription and its projection, the path both shells serve, a fast branch's
 * failure arrives while a lower branch (a real process held on a FIFO) still works, saying what
 * it waits for; its verdict arrives once the lower branch ended.
 */

const tempDir = tempDirs();

it('a subscriber gets the fast attempt’s end while the lower branch is held, and the run page’s projection shows it failed', async () => {
  const dir = tempDir('hw-live-facts-service-');
  const fifo = join(dir, 'slow.fifo');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(dir, 'slow.sh'), `read code < '${fifo}'\necho "notes reviewed"\nexit "$code"\n`);
  const flows = join(dir, 'flows');
  mkdirSync(flows);
  writeFileSync(
    join(flows, 'race.prose'),
    `agent slow:\n  command: "sh ${join(dir, 'slow.sh')}"\nagent fast:\n  runtime: "fake"\n\nparallel:\n  session: slow\n    prompt: "Review the notes"\n  session: fast\n    prompt: "Check the links"\n    simulate: "exit:3"\n`,
  );
  const store = await openStore({ path: join(dir, 'hivewatch.db') });
  const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: flows });
  const live = new Collector(service);
  try {
    await live.ready;
    const { runId } = await service.startRun({ flow: 'user/race.prose' });
    const fast = (await live.waitFor((e) => e.runId === runId && e.type === 'attemptFailed' && e.taskId === '1:1')).event;
    expect(fast).toMatchObject({ awaiting: ['1:0'], trace: { exitCode: 3 } });
    // The lower branch cannot have ended: it reads the FIFO nobody has written to.
    const slowEnded = (): boolean => live.ofRun(runId).some((e) => (e.type === 'attemptSucceeded' || e.type === 'attemptFailed') && e.taskId === '1:0');
    expect(slowEnded()).toBe(false);
    const detail = await service.getRun({ runId });
    const attempt = (taskId: string) => detail?.tasks.find((t) => t.taskId === taskId)?.attempts[0];
    expect([attempt('1:1')?.status, attempt('1:1')?.error?.code, attempt('1:0')?.status]).toEqual(['failed', 'RUNTIME_CRASHED', 'running']);

    const handle = await open(fifo, 'w');
    await handle.write('0\n');
    await handle.close();
    const end = await live.waitFor((e) => e.runId === runId && TERMINAL.has(e.type));
    expect(end.event.type).toBe('runFailed');
    const events = live.ofRun(runId);
    const seqOf = (match: (e: (typeof events)[number]) => boolean): number => events.find(match)?.seq ?? -1;
    // The verdict follows the lower branch's end: the failure counts.
    expect(seqOf((e) => e.type === 'errorOccurred' && e.taskId === '1:1')).toBeGreaterThan(seqOf((e) => e.type === 'attemptSucceeded' && e.taskId === '1:0'));
    expect(fast.seq).toBeLessThan(seqOf((e) => e.type === 'attemptSucceeded' && e.taskId === '1:0'));
  } finally {
    live.unsubscribe();
    await service.close({ timeoutMs: 5_000 });
    await store.close();
  }
});
