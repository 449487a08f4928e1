import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { appFlowsDirOf, FlowKeys } from './keys.js';
import { FlowCatalog } from './catalog.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/** The operator's flows folder is a boundary, symlinks included. */

const FLOW = `agent worker:
  runtime: "fake"
session: worker
  prompt: "hello"
`;
const SECRET = 'root:x:0:0:SECRET-CONTENT:/root:/bin/bash\n';

let dir = '';
let flows = '';
let store: HivewatchStore;
let service: HivewatchService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-links-'));
  flows = join(dir, 'flows');
  mkdirSync(flows);
  const outside = join(dir, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(outside, 'elsewhere.prose'), FLOW);
  writeFileSync(join(flows, 'own.prose'), FLOW);
  symlinkSync(join(outside, 'secret.txt'), join(flows, 'evil.prose'));
  symlinkSync(join(outside, 'elsewhere.prose'), join(flows, 'far.prose'));
  symlinkSync('../outside/elsewhere.prose', join(flows, 'relative.prose'));
  symlinkSync(join(flows, 'own.prose'), join(flows, 'alias.prose'));
  store = await openStore({ path: ':memory:' });
  service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: flows, clock: 'virtual' });
});

afterEach(async () => {
  await service.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const outsideError = (id: string) => ({
  status: 400,
  apiCode: 'flow_outside_folder',
  message: `flow ${id} is a link to a file outside ${flows}; only files inside the flows folder can be listed or run`,
});

describe('symlinks in the operator flows folder', () => {
  it('a link to a non-flow file outside is refused without showing its content', async () => {
    const error = await service.startRun({ flow: 'user/evil.prose' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject(outsideError('user/evil.prose'));
    expect(String((error as Error).message)).not.toContain('SECRET');
  });

  it('a link to a flow outside the folder (absolute or relative) does not start a run', async () => {
    await expect(service.startRun({ flow: 'user/far.prose' })).rejects.toMatchObject(outsideError('user/far.prose'));
    await expect(service.startRun({ flow: 'user/relative.prose' })).rejects.toMatchObject(outsideError('user/relative.prose'));
    expect((await store.listRuns({ limit: 10 })).runs).toEqual([]);
  });

  it('listing and starting agree: links inside the folder are listed and start, links leaving it are neither', async () => {
    const listed = (await service.listFlows()).filter((f) => !f.bundled).map((f) => f.id);
    expect(listed).toEqual(['user/alias.prose', 'user/own.prose']);
    for (const id of listed) {
      const { runId } = await service.startRun({ flow: id });
      await service.whenFinished(runId);
    }
    expect((await store.listRuns({ limit: 10 })).runs.map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('a linked flows folder is fine: the boundary is the folder’s real path', async () => {
    const linked = join(dir, 'linked-flows');
    symlinkSync(flows, linked);
    const keys = new FlowKeys({ examplesDir: EXAMPLES_DIR, userFlowsDir: linked });
    expect((await keys.resolve('user/own.prose')).path).toBe(join(linked, 'own.prose'));
    await expect(keys.resolve('user/far.prose')).rejects.toMatchObject({ problem: 'outside_folder' });
    expect(keys.keyOf(join(flows, 'own.prose'))).toBe('user/own.prose');
    expect(keys.keyOf(join(flows, 'far.prose'))).toBe(join(flows, 'far.prose'));
  });

  it('keys: folder files get folder keys, others absolute paths; relative non-folder keys are refused', async () => {
    const keys = new FlowKeys({ examplesDir: EXAMPLES_DIR, userFlowsDir: appFlowsDirOf(join(dir, 'hivewatch.db')) });
    expect(keys.keyOf(join(flows, 'own.prose'))).toBe('user/own.prose');
    expect(keys.keyOf(join(EXAMPLES_DIR, '01-happy-path.prose'))).toBe('examples/01-happy-path.prose');
    expect(keys.keyOf(join(dir, 'outside', 'elsewhere.prose'))).toBe(join(dir, 'outside', 'elsewhere.prose'));
    await expect(keys.resolve('flows/own.prose')).rejects.toMatchObject({ problem: 'not_a_key' });
    await expect(new FlowKeys({ examplesDir: EXAMPLES_DIR, userFlowsDir: appFlowsDirOf(':memory:') }).resolve('user/own.prose')).rejects.toMatchObject({
      problem: 'no_folder',
    });
  });

  it('loads a flow without waiting a turn of the event loop (under load each turn cost milliseconds)', async () => {
    const catalog = new FlowCatalog({ examplesDir: EXAMPLES_DIR, userFlowsDir: flows });
    const order: string[] = [];
    // A macrotask queued first: whatever waits for the file system's thread pool answers after it.
    setImmediate(() => order.push('next turn'));
    await catalog.load('user/own.prose').then((flow) => order.push(flow.source === FLOW ? 'loaded' : 'wrong source'));
    await catalog.load('user/far.prose').then(
      () => order.push('far loaded'),
      (error: { apiCode?: string }) => order.push(`far refused: ${error.apiCode}`),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['loaded', 'far refused: flow_outside_folder', 'next turn']);
  });
});

describe('the flows folder of a team database', () => {
  const saved = process.env.HIVEWATCH_DB;
  afterEach(() => {
    if (saved === undefined) delete process.env.HIVEWATCH_DB;
    else process.env.HIVEWATCH_DB = saved;
  });

  it('is never named after the URL, also when the URL came from HIVEWATCH_DB', () => {
    const url = 'postgres://ops:pw-in-url@127.0.0.1:5432/hivewatch';
    process.env.HIVEWATCH_DB = url;
    const folder = appFlowsDirOf(url) as string;
    expect(folder).not.toContain('pw-in-url');
    expect(folder).not.toContain('postgres:');
    expect(folder.endsWith(join('hivewatch', 'flows'))).toBe(true);
  });
});
