import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openStore } from '../../store/index.js';
import { postgresBinaries, postgresMissing } from '../../store/testing/test-databases.js';
import { startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService } from '../service.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * The team database goes away mid-run. The journal's writes are retried with bounded
 * backoff; past the bound the run stops as SYSTEM_EVENT_WRITE_FAILED; nothing committed is lost;
 * once the server is back the run's last events land and it resumes.
 */

/** Step 1 finishes at once; step 2's agent (a real process) works until the test lets it finish. */
const flowText = (agentScript: string): string => `
agent worker:
  runtime: "fake"
agent waiter:
  runtime: "command"
  command: "/bin/sh ${agentScript}"
session "Prepare"
  agent: worker
session "Work until told"
  agent: waiter
`;

let cluster: PostgresCluster;
let dir: string;
beforeAll(async () => {
  if (!postgresBinaries) return;
  cluster = await startPostgresCluster(postgresBinaries);
  dir = mkdtempSync(join(tmpdir(), 'hw-server-gone-'));
}, 60_000);
afterAll(() => {
  if (!postgresBinaries) return;
  cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

if (!postgresBinaries) console.warn(`server-gone journey skipped: ${postgresMissing}`);

describe.skipIf(!postgresBinaries)(skipTitle('the PostgreSQL server goes away mid-run', postgresMissing), () => {
  it('retries within its bound, stops the run as SYSTEM_EVENT_WRITE_FAILED, loses nothing committed, and resumes once the server is back', async () => {
    const flows = join(dir, 'flows');
    mkdirSync(flows, { recursive: true });
    const go = join(dir, 'go');
    const agentScript = join(dir, 'agent.sh');
    writeFileSync(agentScript, `while [ ! -e ${go} ]; do sleep 0.02; done\necho done\n`);
    writeFileSync(join(flows, 'waits.prose'), flowText(agentScript));
    const store = await openStore({ path: cluster.url() });
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      userFlowsDir: flows,
      clock: 'real',
      // Short waits (the default bound is about 6 s): the test counts them, it does not time them.
      journalRetryDelaysMs: [5, 10, 20],
    });
    try {
      const committed: HivewatchEvent[] = [];
      store.subscribe((events) => committed.push(...events));
      const { runId } = await service.startRun({ flow: 'user/waits.prose' });
      await expect
        .poll(async () => (await store.getEvents(runId)).some((e) => e.type === 'attemptProcess'), { message: 'the agent of step 2 at work', timeout: 20_000 })
        .toBeTruthy();
      const before = await store.getEvents(runId);

      cluster.halt();
      // The window's reads say what is wrong instead of failing obscurely.
      await expect(service.getRun({ runId })).rejects.toMatchObject({ status: 503, apiCode: 'store_unavailable' });
      // The agent finishes: the run goes on, and its events cannot be journaled.
      writeFileSync(go, '');
      const result = await service.whenFinished(runId);
      expect(result?.status).toBe('failed');
      expect(result?.error?.code).toBe('SYSTEM_EVENT_WRITE_FAILED');
      expect(result?.error?.message).toMatch(/^could not journal \d+ event\(s\): /);

      cluster.restart();
      // Nothing committed was lost: the journal starts with exactly what was committed before.
      const after = await vi.waitFor(() => store.getEvents(runId), { timeout: 20_000 });
      expect(after.slice(0, before.length)).toEqual(before);
      expect(committed.filter((e) => e.runId === runId).slice(0, before.length)).toEqual(before);

      // The buffered last events land first, so the run reads failed, and it resumes after step 1.
      const resumed = await service.resumeRun({ runId });
      const journal = await store.getEvents(runId);
      expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i + 1));
      expect(journal.at(-1)?.type).toBe('runFailed');
      expect((await store.getRunRow(runId))?.status).toBe('failed');
      await service.whenFinished(resumed.runId);
      await expect
        .poll(async () => (await store.getRunRow(resumed.runId))?.status === 'completed', { message: 'the resumed run completed', timeout: 20_000 })
        .toBeTruthy();
      expect(await store.replayRun(runId)).toMatchObject({ ok: true });
      expect(await store.replayRun(resumed.runId)).toMatchObject({ ok: true });
    } finally {
      await service.close({ timeoutMs: 5_000 });
      await store.close();
    }
  });
});
