import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.js';
import { apiConformanceSuite, EXAMPLES_DIR } from './conformance.suite.js';
import { createHivewatchService } from './service.js';
import { tempDirs } from '../testing/temp-dirs.js';

const tempDir = tempDirs();

apiConformanceSuite('in-process service', async ({ dbPath, examplesDir, userFlowsDir }) => {
  const store = await openStore({ path: dbPath });
  const service = await createHivewatchService({ store, examplesDir, userFlowsDir });
  return {
    api: service,
    close: async () => {
      await service.close();
      await store.close();
    },
  };
});

describe('service', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const make = async (liveCapacity?: number) => {
    const store = await openStore({ path: ':memory:' });
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual', ...(liveCapacity ? { liveCapacity } : {}) });
    cleanups.push(
      () => store.close(),
      () => service.close(),
    );
    return service;
  };

  it('runs many flows at once under the global limit and journals every event', async () => {
    const service = await make();
    const ids = await Promise.all(
      ['01-happy-path', '02-rate-limited-api', '03-flaky-tests', '04-parallel-fan-out', '05-try-catch-finally'].map(
        async (name) => (await service.startRun({ flow: `examples/${name}.prose` })).runId,
      ),
    );
    expect(service.activeRunIds().sort()).toEqual([...ids].sort());
    const results = await Promise.all(ids.map((id) => service.whenFinished(id)));
    expect(results.map((r) => r?.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'failed']);
    expect(service.activeRunIds()).toEqual([]);
    const page = await service.listRuns({ limit: 10, sort: 'status' });
    expect(page.items.map((r) => r.status)).toEqual(['failed', 'completed', 'completed', 'completed', 'completed']);
    const byFlow = await service.listRuns({ limit: 2, sort: 'flow' });
    expect(byFlow.items.map((r) => r.flowName)).toEqual(['01-happy-path', '02-rate-limited-api']);
    const rest = await service.listRuns({ limit: 10, sort: 'flow', cursor: byFlow.nextCursor as string });
    expect(rest.items.map((r) => r.flowName)).toEqual(['03-flaky-tests', '04-parallel-fan-out', '05-try-catch-finally']);
    expect(rest.nextCursor).toBeNull();
  });

  it('a subscriber older than the live buffer gets a reset, not a gap', async () => {
    const service = await make(8);
    const first = new Promise<number>((resolve) => {
      const off = service.subscribe((batch) => {
        off();
        resolve(batch[0]?.id as number);
      });
    });
    const { runId } = await service.startRun({ flow: 'examples/01-happy-path.prose' });
    await service.whenFinished(runId);
    const firstId = await first;
    expect(firstId).toBe(1);
    const reset = await new Promise<boolean>((resolve) => {
      const off = service.subscribe(() => undefined, { afterId: firstId, onReset: () => (off(), resolve(true)) });
    });
    expect(reset).toBe(true);
    // Still in the ring: the last 8 ids resume without a reset.
    const head = service.subscribeLive({ onBatch: () => undefined }).startId;
    const tail: number[] = [];
    await new Promise<void>((resolve) => {
      const off = service.subscribe(
        (batch) => {
          tail.push(...batch.map((e) => e.id));
          if (tail.at(-1) === head) {
            off();
            resolve();
          }
        },
        { afterId: head - 8, onReset: () => resolve() },
      );
    });
    expect(tail).toEqual(Array.from({ length: 8 }, (_, i) => head - 7 + i));
  });
});

describe('service: flows the engine cannot follow', () => {
  it('a flow nested too deeply gets its diagnostic from checkFlow and a 400 from startRun, never a crash', async () => {
    const store = await openStore({ path: ':memory:' });
    const dir = tempDir('hw-deep-');
    const deep = `session "x" (retry: 1, backoff: ${'['.repeat(3400)}${']'.repeat(3400)})\n`;
    writeFileSync(join(dir, 'deep.prose'), deep);
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: dir, clock: 'virtual' });
    try {
      const checked = await service.checkFlow({ source: deep, file: 'deep.prose' });
      expect(checked.ok).toBe(false);
      expect(checked.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
        '1:97: nesting deeper than 64 levels (blocks and lists): flatten this part of the flow',
      ]);
      await expect(service.startRun({ flow: 'user/deep.prose' })).rejects.toMatchObject({ status: 400, apiCode: 'invalid_flow' });
    } finally {
      await service.close();
      await store.close();
    }
  });
});
