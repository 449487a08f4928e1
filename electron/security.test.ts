import { describe, expect, it, vi } from 'vitest';
import { electronSqliteBinding } from './native.js';
import { failureNotifier, type FailureNote } from './notify.js';
import { loadCompiledPreload } from './testing/preload-module.js';
import type { IpcRendererLike } from './preload.cjs';
import {
  APP_URL,
  CALL_CHANNEL,
  CONTENT_SECURITY_POLICY,
  EVENTS_CHANNEL,
  handleWillAttachWebview,
  handleWillNavigate,
  isAppUrl,
  isHivewatchChannel,
  permissionRequestHandler,
  SUBSCRIBE_CHANNEL,
  UNSUBSCRIBE_CHANNEL,
  windowOpenHandler,
  windowOptions,
  withCsp,
} from './security.js';
import { DEFAULT_WINDOW_STATE, fitToDisplays, parseWindowState } from './window-state.js';

const { BRIDGE_CHANNELS, createBridge } = loadCompiledPreload();

describe('Electron window security (no Electron binary needed)', () => {
  it('isolates the renderer: context isolation, sandbox, no Node, no webview', () => {
    const options = windowOptions('/app/dist/electron/preload.cjs', { width: 1200, height: 800 });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
    });
    expect(options).toMatchObject({ width: 1200, height: 800, show: false });
    expect(options.webPreferences.preload.endsWith('.cjs')).toBe(true);
  });

  it('has a strict CSP: only its own origin, no inline script, no eval, no framing', () => {
    const directives = Object.fromEntries(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'font-src': "'self'",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|\*|http:|https:/);
    expect(withCsp({ 'content-type': ['text/html'], 'Content-Security-Policy': ['default-src *'] })).toEqual({
      'content-type': ['text/html'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
  });

  it('denies navigation away from the app, new windows, webviews and permissions', () => {
    for (const url of ['https://evil.example/', 'http://127.0.0.1:1234/', 'file:///etc/passwd', 'app://other/index.html', 'javascript:alert(1)', 'not a url']) {
      const event = { preventDefault: vi.fn() };
      expect(handleWillNavigate(event, url)).toBe(false);
      expect(event.preventDefault).toHaveBeenCalledOnce();
    }
    const inside = { preventDefault: vi.fn() };
    expect(handleWillNavigate(inside, `${APP_URL}#/runs`)).toBe(true);
    expect(inside.preventDefault).not.toHaveBeenCalled();
    expect(isAppUrl(APP_URL)).toBe(true);
    expect(windowOpenHandler({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(windowOpenHandler({ url: APP_URL })).toEqual({ action: 'deny' });
    const webview = { preventDefault: vi.fn() };
    handleWillAttachWebview(webview);
    expect(webview.preventDefault).toHaveBeenCalledOnce();
    const granted: boolean[] = [];
    permissionRequestHandler(null, 'media', (g) => granted.push(g));
    permissionRequestHandler(null, 'notifications', (g) => granted.push(g));
    expect(granted).toEqual([false, false]);
  });

  it('names exactly four channels: the calls, and the live subscription’s three', () => {
    expect([CALL_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, EVENTS_CHANNEL]).toEqual([
      'hivewatch:call',
      'hivewatch:subscribe',
      'hivewatch:unsubscribe',
      'hivewatch:events',
    ]);
    for (const channel of [CALL_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, EVENTS_CHANNEL]) expect(isHivewatchChannel(channel)).toBe(true);
    for (const channel of ['hivewatch:startRun', 'hivewatch:exec', 'hivewatch:', 'call', 'other:call', 42, null])
      expect(isHivewatchChannel(channel)).toBe(false);
  });

  it('the preload uses the same channels as main', () => {
    expect(BRIDGE_CHANNELS).toEqual({ call: CALL_CHANNEL, subscribe: SUBSCRIBE_CHANNEL, unsubscribe: UNSUBSCRIBE_CHANNEL, events: EVENTS_CHANNEL });
  });

  it('the bridge is one frozen object that sends a method name and its input on the call channel, and nothing that cannot be a name', async () => {
    const calls: unknown[][] = [];
    const ipc: IpcRendererLike = {
      invoke: (...args) => (calls.push(args), Promise.resolve({ ok: true, value: 'x' })),
      on: () => undefined,
      removeListener: () => undefined,
    };
    const bridge = createBridge(ipc);
    expect(Object.isFrozen(bridge)).toBe(true);
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'subscribe']);
    await expect(bridge.invoke('listRuns', { limit: 1 })).resolves.toEqual({ ok: true, value: 'x' });
    for (const method of ['hivewatch:listRuns', '../listRuns', '', 'a'.repeat(65), 'list runs', 42, null]) {
      await expect(bridge.invoke(method as never, {})).rejects.toThrow(`hivewatch: "${String(method).slice(0, 80)}" is not an API method name`);
    }
    expect(calls).toEqual([['hivewatch:call', 'listRuns', { limit: 1 }]]);
    expect(() => bridge.subscribe(-1, () => undefined)).toThrow(TypeError);
  });

  it('a bridge subscription only sees its own messages and unsubscribes cleanly', async () => {
    const listeners = new Set<(event: unknown, message: unknown) => void>();
    const invoked: unknown[][] = [];
    const ipc: IpcRendererLike = {
      invoke: (...args) => (invoked.push(args), Promise.resolve({ ok: true, value: null })),
      on: (_channel, listener) => listeners.add(listener),
      removeListener: (_channel, listener) => listeners.delete(listener),
    };
    const seen: unknown[] = [];
    const stop = createBridge(ipc).subscribe(7, (m) => seen.push(m));
    const { subscription } = invoked[0]?.[1] as { subscription: string };
    expect(invoked[0]).toEqual(['hivewatch:subscribe', { subscription, afterId: 7 }]);
    for (const listener of listeners) {
      listener({}, { subscription: 'someone-else', kind: 'ready', startId: 1 });
      listener({}, { subscription, kind: 'ready', startId: 7, extra: 'dropped' });
    }
    expect(seen).toEqual([{ kind: 'ready', startId: 7 }]);
    stop();
    expect(listeners.size).toBe(0);
    expect(invoked[1]).toEqual(['hivewatch:unsubscribe', { subscription }]);
  });
});

describe('window state and the native binding', () => {
  it('remembers a plausible size and position, and falls back otherwise', () => {
    expect(parseWindowState('{"x":10,"y":20,"width":1000,"height":700,"maximized":true}')).toEqual({ x: 10, y: 20, width: 1000, height: 700, maximized: true });
    expect(parseWindowState('{"width":10,"height":700}')).toEqual(DEFAULT_WINDOW_STATE);
    expect(parseWindowState('not json')).toEqual(DEFAULT_WINDOW_STATE);
    expect(parseWindowState('{"width":1000,"height":700,"x":"1"}')).toEqual({ width: 1000, height: 700 });
    const screenArea = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    expect(fitToDisplays({ x: 100, y: 100, width: 800, height: 600 }, screenArea)).toEqual({ x: 100, y: 100, width: 800, height: 600 });
    expect(fitToDisplays({ x: 5000, y: 100, width: 800, height: 600 }, screenArea)).toEqual({ width: 800, height: 600 });
  });

  it('finds the Electron build of better-sqlite3 apart from the Node build', () => {
    const have = new Set(['/app/native/electron/better_sqlite3.node', '/custom/b.node']);
    const exists = (p: string): boolean => have.has(p);
    expect(electronSqliteBinding('/app', {}, exists)).toBe('/app/native/electron/better_sqlite3.node');
    expect(electronSqliteBinding('/app', { HIVEWATCH_SQLITE_BINDING: '/custom/b.node' }, exists)).toBe('/custom/b.node');
    expect(electronSqliteBinding('/elsewhere', {}, exists)).toBeUndefined();
  });
});

describe('failure notifications', () => {
  it('one per failed run, at most one per interval, counting the ones it held back', () => {
    const notes: FailureNote[] = [];
    let clock = 0;
    const notify = failureNotifier((n) => notes.push(n), { minIntervalMs: 10_000, now: () => clock });
    const failed = (runId: string) =>
      ({
        runId,
        seq: 9,
        ts: 0,
        type: 'runFailed',
        error: {
          category: 'runtime',
          code: 'RUNTIME_CRASHED',
          message: 'boom',
          origin: 'runtime:fake',
          recoverable: true,
          recovery_hint: null,
          context: {},
          timestamp: 0,
          correlation: { project: null, flow: 'examples/05.prose', run: runId, step: 1, task: null, attempt: null },
        },
      }) as const;
    notify({ runId: 'r0', seq: 1, ts: 0, type: 'stepFinished', step: 1 });
    notify(failed('r1'));
    clock = 5_000;
    notify(failed('r2'));
    notify(failed('r3'));
    clock = 20_000;
    notify(failed('r4'));
    expect(notes).toEqual([
      { title: 'Run failed: examples/05.prose', body: 'RUNTIME_CRASHED: boom', runId: 'r1' },
      { title: 'Run failed: examples/05.prose', body: 'RUNTIME_CRASHED: boom (and 2 more failed runs before it)', runId: 'r4' },
    ]);
  });
});
