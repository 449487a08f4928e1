import { afterEach, describe, expect, it } from 'vitest';
import { apiConformanceSuite, EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService } from '../core/service/service.js';
import { openStore } from '../core/store/index.js';
import { createIpcClient } from '../renderer/api/ipc-client.js';
import { detectElectron } from '../server/launcher.js';
import { findPackageRoot } from '../shell-common/paths.js';
import { ipcChannels, registerIpc } from './ipc.js';
import { loadCompiledPreload } from './preload-module.js';
import { InMemoryIpc } from './testing.js';

const { createBridge } = loadCompiledPreload();

// The whole chain the Electron window uses (ipc-client → preload bridge → channels → ipc.ts →
// service), over an in-memory transport that serialises like Electron's IPC.
apiConformanceSuite('IPC (preload bridge and ipc.ts over an in-memory transport)', async ({ dbPath, examplesDir, userFlowsDir }) => {
  const store = await openStore({ path: dbPath });
  const service = await createHivewatchService({ store, examplesDir, userFlowsDir });
  const ipc = new InMemoryIpc();
  const dispose = registerIpc(ipc, service);
  return {
    api: createIpcClient(createBridge(ipc)),
    close: async () => {
      dispose();
      await service.close();
      await store.close();
    },
  };
});

// The same suite inside a real Electron process needs Electron's binary (and a display).
const electron = detectElectron(findPackageRoot());
apiConformanceSuite('IPC inside Electron', () => Promise.reject(new Error('not reached')), {
  skipReason: electron.ok
    ? 'an Electron binary is present, but the in-window run is driven by the e2e journeys (needs a display), not by vitest'
    : `no Electron binary on this machine (${electron.reason})`,
});

describe('ipc.ts', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const setup = async () => {
    const store = await openStore({ path: ':memory:' });
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual' });
    const ipc = new InMemoryIpc();
    const dispose = registerIpc(ipc, service, { isTrustedSender: (event) => event.senderFrame?.url.startsWith('app://hivewatch/') === true });
    cleanups.push(() => store.close(), () => service.close(), dispose);
    return { service, ipc };
  };

  it('answers on exactly the prefixed channels and validates every payload', async () => {
    const { ipc } = await setup();
    expect(ipcChannels()).toEqual([
      'hivewatch:startRun', 'hivewatch:cancelRun', 'hivewatch:retryRun', 'hivewatch:resumeRun', 'hivewatch:skipBackoff',
      'hivewatch:listRuns', 'hivewatch:countRuns', 'hivewatch:getRun', 'hivewatch:getEvents', 'hivewatch:listFlows', 'hivewatch:checkFlow',
      'hivewatch:saveFlow', 'hivewatch:getNotificationSettings', 'hivewatch:setFlowMuted',
      'hivewatch:errorCounts', 'hivewatch:failureCounts', 'hivewatch:errorSeries', 'hivewatch:errorGroups', 'hivewatch:listErrors',
      'hivewatch:subscribe', 'hivewatch:unsubscribe',
    ]);
    expect(await ipc.invoke('hivewatch:listRuns', { limit: 0 })).toEqual({
      ok: false, error: { status: 400, code: 'invalid_input', message: 'limit: must be at least 1' },
    });
    expect(await ipc.invoke('hivewatch:getRun', 'run_1')).toEqual({ ok: false, error: { status: 400, code: 'invalid_input', message: 'input must be an object' } });
    expect(await ipc.invoke('hivewatch:listRuns', {}, { extra: true })).toEqual({ ok: false, error: { status: 400, code: 'invalid_input', message: 'takes one input object' } });
    expect(await ipc.invoke('hivewatch:subscribe', { subscription: '../x' })).toEqual({
      ok: false, error: { status: 400, code: 'invalid_input', message: 'subscription: must be a subscription id' },
    });
    await expect(ipc.invoke('hivewatch:shell', {})).rejects.toThrow(/No handler registered/);
    expect(await ipc.invoke('hivewatch:getRun', { runId: 'run_missing' })).toEqual({ ok: true, value: null });
  });

  it('refuses calls from a frame that is not the app', async () => {
    const { ipc } = await setup();
    ipc.frameUrl = 'https://evil.example/';
    expect(await ipc.invoke('hivewatch:listFlows')).toEqual({ ok: false, error: { status: 403, code: 'forbidden', message: 'this frame may not call the Hivewatch API' } });
  });

  it('stops a renderer’s subscriptions when it goes away', async () => {
    const { service, ipc } = await setup();
    const bridge = createBridge(ipc);
    const kinds: string[] = [];
    const ready = new Promise<void>((resolve) =>
      bridge.subscribe(0, (message) => {
        kinds.push(message.kind);
        if (message.kind === 'ready') resolve();
      }),
    );
    await ready;
    expect(kinds).toEqual(['ready']);
    ipc.destroy();
    const { runId } = await service.startRun({ flow: 'examples/01-happy-path.prose' });
    await service.whenFinished(runId);
    await new Promise((resolve) => setImmediate(resolve));
    expect(kinds).toEqual(['ready']);
  });
});
