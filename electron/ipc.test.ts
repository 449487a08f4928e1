import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { _electron as playwrightElectron } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeMessage, HivewatchBridge } from '../core/service/api.js';
import { apiConformanceSuite, EXAMPLES_DIR, type ApiHarness, type HarnessOptions } from '../core/service/conformance.suite.js';
import { createHivewatchService } from '../core/service/service.js';
import { openStore } from '../core/store/index.js';
import { skipTitle } from '../core/testing/skip.js';
import { createIpcClient } from '../renderer/api/ipc-client.js';
import { detectElectron } from '../server/launcher.js';
import { findPackageRoot } from '../shell-common/paths.js';
import { ipcChannels, registerIpc } from './ipc.js';
import { loadCompiledPreload } from './testing/preload-module.js';
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

// The same suite inside a real Electron process: dist/electron/main.ts with its preload, ipcMain
// and the sandboxed window; the API is driven through the page's own `window.hivewatch`. Where
// Electron's binary (or a display) is missing it is not registered: one skipped test says why.
const electron = detectElectron(findPackageRoot());
const display = process.env.DISPLAY ?? (existsSync('/usr/bin/Xvfb') ? ':98' : null);
const electronMissing = !electron.ok ? electron.reason : display === null ? 'no display and no Xvfb to make one' : null;
if (electron.ok && display !== null) {
  apiConformanceSuite('IPC inside Electron (main.ts, its preload and ipcMain)', (options) => launchInElectron(electron.binary, display, options));
} else {
  // Skipped only without an electron binary (its installer downloads it from outside the npm registry) or a display.
  it.skip(skipTitle('HivewatchApi conformance: IPC inside Electron', electronMissing), () => undefined);
}

type PageWindow = { hivewatch: HivewatchBridge; hivewatchTestDeliver(id: number, message: BridgeMessage): void; hivewatchTestStops?: Map<number, () => void> };

/** Starts the real window on the suite's database (its flows folder is the one beside it). */
async function launchInElectron(binary: string, display: string, { dbPath }: HarnessOptions): Promise<ApiHarness> {
  const root = findPackageRoot();
  const xvfb = process.env.DISPLAY ? null : spawn('/usr/bin/Xvfb', [display, '-screen', '0', '1280x800x24'], { stdio: 'ignore' });
  const app = await playwrightElectron.launch({
    executablePath: binary,
    args: [join(root, 'dist', 'electron', 'main.js'), '--db', dbPath],
    cwd: root,
    // Its own userData (window state, single-instance lock) inside the suite's temp folder.
    env: { ...process.env, DISPLAY: display, XDG_CONFIG_HOME: join(dirname(dbPath), 'config') },
  });
  const page = await app.firstWindow();
  await page.waitForFunction(() => typeof (window as unknown as Partial<PageWindow>).hivewatch === 'object');
  const listeners = new Map<number, (message: BridgeMessage) => void>();
  await page.exposeFunction('hivewatchTestDeliver', (id: number, message: BridgeMessage) => listeners.get(id)?.(message));
  let nextId = 0;
  const bridge: HivewatchBridge = {
    invoke: (method, input) => page.evaluate(([m, i]) => (window as unknown as PageWindow).hivewatch.invoke(m, i), [method, input] as const),
    subscribe(afterId, onMessage) {
      const id = ++nextId;
      listeners.set(id, onMessage);
      // A failed subscribe shows as the suite's Collector never getting `ready` (its hook times out).
      page
        .evaluate(
          ([subscription, after]) => {
            const w = window as unknown as PageWindow;
            w.hivewatchTestStops ??= new Map();
            w.hivewatchTestStops.set(
              subscription,
              w.hivewatch.subscribe(after, (message) => w.hivewatchTestDeliver(subscription, message)),
            );
          },
          [id, afterId] as const,
        )
        .catch(() => undefined);
      return () => {
        listeners.delete(id);
        page.evaluate((subscription) => (window as unknown as PageWindow).hivewatchTestStops?.get(subscription)?.(), id).catch(() => undefined);
      };
    },
  };
  return {
    api: createIpcClient(bridge),
    close: async () => {
      await app.close();
      xvfb?.kill('SIGTERM');
    },
  };
}

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
    cleanups.push(
      () => store.close(),
      () => service.close(),
      dispose,
    );
    return { service, ipc };
  };

  it('answers on exactly three channels, only the API’s own method names, and validates every payload', async () => {
    const { ipc } = await setup();
    expect(ipcChannels()).toEqual(['hivewatch:call', 'hivewatch:subscribe', 'hivewatch:unsubscribe']);
    expect(await ipc.invoke('hivewatch:call', 'listRuns', { limit: 0 })).toEqual({
      ok: false,
      error: { status: 400, code: 'invalid_input', message: 'limit: must be at least 1' },
    });
    expect(await ipc.invoke('hivewatch:call', 'getRun', 'run_1')).toEqual({
      ok: false,
      error: { status: 400, code: 'invalid_input', message: 'input must be an object' },
    });
    expect(await ipc.invoke('hivewatch:call', 'listRuns', {}, { extra: true })).toEqual({
      ok: false,
      error: { status: 400, code: 'invalid_input', message: 'takes a method name and one input object' },
    });
    // An inherited key, a channel's name, anything that is not a string: none is a method.
    for (const [method, shown] of [
      ['constructor', 'constructor'],
      ['__proto__', '__proto__'],
      ['toString', 'toString'],
      ['subscribe', 'subscribe'],
      ['hivewatch:listRuns', 'hivewatch:listRuns'],
      [42, '42'],
    ] as const) {
      expect(await ipc.invoke('hivewatch:call', method, {})).toEqual({
        ok: false,
        error: { status: 404, code: 'unknown_method', message: `no API method "${shown}"` },
      });
    }
    expect(await ipc.invoke('hivewatch:subscribe', { subscription: '../x' })).toEqual({
      ok: false,
      error: { status: 400, code: 'invalid_input', message: 'subscription: must be a subscription id' },
    });
    await expect(ipc.invoke('hivewatch:listRuns', {})).rejects.toThrow(/No handler registered/);
    expect(await ipc.invoke('hivewatch:call', 'getRun', { runId: 'run_missing' })).toEqual({ ok: true, value: null });
    expect(await ipc.invoke('hivewatch:call', 'listFlows')).toMatchObject({ ok: true });
  });

  it('refuses calls from a frame that is not the app', async () => {
    const { ipc } = await setup();
    ipc.frameUrl = 'https://evil.example/';
    expect(await ipc.invoke('hivewatch:call', 'listFlows')).toEqual({
      ok: false,
      error: { status: 403, code: 'forbidden_frame', message: 'this frame may not call the Hivewatch API' },
    });
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
