import { app, BrowserWindow, dialog, ipcMain, Notification, protocol, screen, session, type WebContents } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appFlowsDirOf } from '../core/service/flows/keys.js';
import { startDemo } from '../core/service/demo.js';
import { journalRetryDelays } from '../core/service/runs/journal-env.js';
import { DEFAULT_QUIET_MS } from '../core/otel/receive/ingest.js';
import { otelIdleOf, otelPortOf, startHostReceiver } from '../core/otel/host.js';
import { readNotificationSettings } from '../core/service/flows/notify-settings.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openHostStore } from '../core/service/history/open.js';
import { DEFAULT_READ_WORKERS, defaultDatabasePath, printableLocation, readWorkersOf, type HivewatchStore } from '../core/store/index.js';
import { FALLBACK_CSS, FALLBACK_HTML, FALLBACK_JS } from '../shell-common/fallback-page.js';
import { findPackageRoot, packagePaths } from '../shell-common/paths.js';
import { contentTypeOf, hasRenderer, readRendererFile, rendererFile } from '../shell-common/static-files.js';
import { registerIpc } from './ipc.js';
import { electronSqliteBinding, NATIVE_HELP } from './native.js';
import { desktopAlertNotifier, failureNotifier } from './notify.js';
import {
  APP_HOST,
  APP_SCHEME,
  APP_URL,
  CONTENT_SECURITY_POLICY,
  handleWillAttachWebview,
  handleWillNavigate,
  isAppUrl,
  permissionRequestHandler,
  windowOpenHandler,
  windowOptions,
  withCsp,
} from './security.js';
import { fitToDisplays, loadWindowState, saveWindowState } from './window-state.js';

/**
 * The desktop shell's main process: one instance per user, one window, the service in-process
 * (its database opened with better-sqlite3 built for Electron's ABI), the API on IPC, the
 * renderer served from app://hivewatch/ with a strict CSP, and a native notification when a run
 * fails. Every security decision lives in security.ts (tested without Electron).
 *
 *   electron dist/electron/main.js [--db PATH] [--demo]
 */

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }]);

const here = dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({
  args: process.argv.slice(app.isPackaged ? 1 : 2),
  options: { db: { type: 'string' }, demo: { type: 'boolean', default: false }, 'otel-port': { type: 'string' }, 'otel-idle': { type: 'string' } },
  strict: false,
  allowPositionals: true,
});

let mainWindow: BrowserWindow | null = null;

function serveApp(rendererDist: string) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers = (type: string): Record<string, string> => ({
      'content-type': type,
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
    if (url.host !== APP_HOST) return new Response('not found', { status: 404, headers: headers('text/plain') });
    if (!hasRenderer(rendererDist)) {
      const page: Record<string, [string, string]> = {
        '/': [FALLBACK_HTML, 'text/html; charset=utf-8'],
        '/index.html': [FALLBACK_HTML, 'text/html; charset=utf-8'],
        '/fallback.js': [FALLBACK_JS, 'text/javascript; charset=utf-8'],
        '/fallback.css': [FALLBACK_CSS, 'text/css; charset=utf-8'],
      };
      const hit = page[url.pathname];
      return hit ? new Response(hit[0], { headers: headers(hit[1]) }) : new Response('not found', { status: 404, headers: headers('text/plain') });
    }
    const file = rendererFile(rendererDist, url.pathname);
    if (file === null) return new Response('not found', { status: 404, headers: headers('text/plain') });
    return new Response(new Uint8Array(readRendererFile(file)), { headers: headers(contentTypeOf(file)) });
  };
}

function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => handleWillNavigate(event, url));
  contents.on('will-redirect', (event, url) => handleWillNavigate(event, url));
  contents.on('will-attach-webview', (event) => handleWillAttachWebview(event));
  contents.setWindowOpenHandler(windowOpenHandler);
}

function notifyFailures(service: HivewatchService): () => void {
  // The mutes as last read: refreshed before each batch is looked at (a setting read, cheap).
  let muted = new Set<string>();
  const notify = failureNotifier(
    (note) => {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title: note.title, body: note.body });
      notification.on('click', () => {
        mainWindow?.show();
        mainWindow?.focus();
      });
      notification.show();
    },
    { isMuted: (flow) => muted.has(flow) },
  );
  let turn: Promise<void> = Promise.resolve();
  return service.subscribe((batch) => {
    turn = turn.then(async () => {
      muted = new Set((await readNotificationSettings(service.store).catch(() => ({ mutedFlows: [...muted] }))).mutedFlows);
      for (const { event } of batch) notify(event);
    });
  });
}

/** The alert engine's pass interval (core/service/alerts/alerts-host.ts): the desktop feed is read on the same beat too, for other hosts' firings. */
const DESKTOP_ALERTS_EVERY_MS = 5_000;

function notifyDesktopAlerts(service: HivewatchService): () => void {
  // The notification shown for each firing: its follow-up ("Resolved: …") closes it and takes its place.
  const byFiring = new Map<string, Notification>();
  const check = desktopAlertNotifier(
    (after) => service.listDesktopAlerts(after === undefined ? {} : { after }),
    (alert, route) => {
      if (!Notification.isSupported()) return;
      byFiring.get(alert.firing)?.close();
      byFiring.delete(alert.firing);
      const notification = new Notification({ title: alert.title, body: alert.body });
      notification.on('click', () => {
        if (!mainWindow) return;
        mainWindow.show();
        mainWindow.focus();
        // A change of the fragment only: the window routes to it without reloading.
        void mainWindow.loadURL(`${APP_URL}${route}`);
      });
      notification.on('close', () => {
        if (byFiring.get(alert.firing) === notification) byFiring.delete(alert.firing);
      });
      byFiring.set(alert.firing, notification);
      notification.show();
    },
  );
  const tick = (): void => void check().catch((error: unknown) => console.error(`Hivewatch: desktop alerts: ${(error as Error).message}`));
  tick();
  // This host's firings at once; other hosts' (a team database) on the beat.
  const stopTold = service.onAlertDeliveries((change) => {
    if (change.desktop) tick();
  });
  const timer = setInterval(tick, DESKTOP_ALERTS_EVERY_MS);
  return () => {
    stopTold();
    clearInterval(timer);
  };
}

function createWindow(stateFile: string): BrowserWindow {
  const saved = fitToDisplays(
    loadWindowState(stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const { maximized, ...bounds } = saved;
  const win = new BrowserWindow(windowOptions(join(here, 'preload.cjs'), bounds));
  if (maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  win.on('close', () => {
    try {
      saveWindowState(stateFile, { ...win.getNormalBounds(), maximized: win.isMaximized() });
    } catch {
      // Remembering the size is a nicety; never block closing on it.
    }
  });
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  return win;
}

/** HIVEWATCH_JOURNAL_RETRY_MS as `serve` reads it; a bad value is said and the default kept (the window still opens). */
function journalRetryOf(env: NodeJS.ProcessEnv): { journalRetryDelaysMs?: readonly number[] } {
  try {
    return { journalRetryDelaysMs: journalRetryDelays(env) };
  } catch (error) {
    console.error(`Hivewatch: ${(error as Error).message}; using the default journal retry window`);
    return {};
  }
}

/** HIVEWATCH_READ_WORKERS as `serve` reads it; a bad value is said and the default kept (the window still opens). */
function readWorkersFrom(env: NodeJS.ProcessEnv): number {
  try {
    return readWorkersOf(env);
  } catch (error) {
    console.error(`Hivewatch: ${(error as Error).message}; using ${DEFAULT_READ_WORKERS} read workers`);
    return DEFAULT_READ_WORKERS;
  }
}

async function start(): Promise<void> {
  await app.whenReady();
  const paths = packagePaths(findPackageRoot(fileURLToPath(import.meta.url)));
  const dbPath = typeof flags.db === 'string' ? flags.db : process.env.HIVEWATCH_DB || defaultDatabasePath();

  let store: HivewatchStore;
  try {
    const nativeBinding = electronSqliteBinding(paths.root);
    // The read workers load the same native build as the connection (nativeBinding).
    store = await openHostStore({ path: dbPath, readWorkers: readWorkersFrom(process.env), ...(nativeBinding !== undefined ? { nativeBinding } : {}) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    dialog.showErrorBox(
      'Hivewatch cannot open its database',
      `${printableLocation(dbPath)}\n\n${message}\n\n${/NODE_MODULE_VERSION|was compiled against/.test(message) ? NATIVE_HELP : ''}`,
    );
    app.exit(1);
    return;
  }
  // The window has no HTTP server of its own: the OTLP receiver is the one loopback listener (docs/otel.md).
  let otelPort: number | null;
  try {
    otelPort = otelPortOf(typeof flags['otel-port'] === 'string' ? flags['otel-port'] : undefined);
  } catch (error) {
    console.error(`Hivewatch: ${(error as Error).message}; no OpenTelemetry receiver`);
    otelPort = null;
  }
  let otelIdleMs = DEFAULT_QUIET_MS;
  try {
    otelIdleMs = otelIdleOf(typeof flags['otel-idle'] === 'string' ? flags['otel-idle'] : undefined);
  } catch (error) {
    console.error(`Hivewatch: ${(error as Error).message}; using the default quiet period`);
  }
  const otel = await startHostReceiver(store, otelPort, (line) => console.error(line), otelIdleMs);
  const service = await createHivewatchService({
    store,
    telemetry: () => (otel ? { endpoint: otel.endpoint, token: otel.token } : null),
    examplesDir: paths.examplesDir,
    userFlowsDir: appFlowsDirOf(dbPath),
    defaultAgent: process.env.HIVEWATCH_AGENT ?? null,
    ...journalRetryOf(process.env),
    // A dead host's runs turn interrupted in the window without a restart.
    watchHosts: true,
  });
  const stopDemo = flags.demo === true ? startDemo(service) : null;
  const stopNotifications = notifyFailures(service);
  const stopDesktopAlerts = notifyDesktopAlerts(service);

  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCsp(details.responseHeaders) }));
  ses.setPermissionRequestHandler(permissionRequestHandler);
  ses.setPermissionCheckHandler(() => false);
  protocol.handle(APP_SCHEME, serveApp(paths.rendererDist));
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  const disposeIpc = registerIpc(ipcMain, service, { isTrustedSender: (event) => isAppUrl(event.senderFrame?.url ?? '') });

  mainWindow = createWindow(join(app.getPath('userData'), 'window-state.json'));
  app.on('second-instance', () => {
    if (!mainWindow) mainWindow = createWindow(join(app.getPath('userData'), 'window-state.json'));
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => app.quit());

  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    stopDemo?.();
    stopNotifications();
    stopDesktopAlerts();
    disposeIpc();
    // Runs still going are cancelled and journaled; a later start can resume them.
    service
      .close({ timeoutMs: 5_000 })
      .catch(() => undefined)
      .then(() => otel?.close())
      .catch(() => undefined)
      .then(() => store.close())
      .catch(() => undefined)
      .finally(() => {
        app.exit(0);
      });
  });

  await mainWindow.loadURL(APP_URL);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  start().catch((error: unknown) => {
    dialog.showErrorBox('Hivewatch failed to start', error instanceof Error ? (error.stack ?? error.message) : String(error));
    app.exit(1);
  });
}
