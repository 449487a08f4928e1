import { existsSync, mkdirSync } from 'node:fs';
import { appFlowsDirOf } from '../core/service/flow-keys.js';
import { startHostReceiver } from '../core/otel/host.js';
import type { OtlpReceiver } from '../core/otel/receiver.js';
import { startDemo } from '../core/service/demo.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { defaultDatabasePath, openStore, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell } from './http.js';
import { newToken } from './security.js';
import { findChromium, hasDisplay, openChromiumApp, type ChromiumWindow } from './launcher.js';
import { packagePaths } from './paths.js';
import { hasRenderer } from './static.js';

/**
 * The browser shell in one call: open (or create) the database, start the service over it, serve
 * it on 127.0.0.1 with the database's token (created once, kept in its `settings`: a copied link
 * or a restart keeps access; `token` overrides it), and optionally keep demo runs going and open a Chromium
 * app window on it.
 */

export interface StartServerOptions {
  /** 0 / absent: a free port. */
  port?: number;
  /** Default: `$HIVEWATCH_DB`, else the OS data directory (see defaultDatabasePath). */
  dbPath?: string;
  demo?: boolean;
  /** Open the page in Chromium's app mode when Chromium and a display are there. */
  open?: boolean;
  /** Default: the database's own token (`settings` http.token; a fresh one for ':memory:'). */
  token?: string;
  examplesDir?: string;
  /** The operator's flows; default `<database dir>/flows` (created), none for ':memory:'. */
  userFlowsDir?: string | null;
  /** The built renderer; default renderer-dist/ of the package (the built-in page when absent). */
  staticDir?: string | null;
  heartbeatMs?: number;
  globalConcurrency?: number;
  defaultAgent?: string | null;
  /** The OTLP receiver's port (docs/otel.md); null / absent: none (the `serve` command passes 4318 unless told). */
  otelPort?: number | null;
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  origin: string;
  token: string;
  port: number;
  dbPath: string;
  /** Whether this start created the database file. */
  createdDatabase: boolean;
  userFlowsDir: string | null;
  /** Whether the built renderer is served (else the built-in page). */
  renderer: boolean;
  service: HivewatchService;
  store: HivewatchStore;
  /** The Chromium window when `open` launched one. */
  window: ChromiumWindow | null;
  /** Why no window was opened (when `open` was asked and none was). */
  openSkipped: string | null;
  /** The OpenTelemetry receiver, when one listens. */
  otel: OtlpReceiver | null;
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const paths = packagePaths();
  const log = options.log ?? ((line: string) => console.error(line));
  const dbPath = options.dbPath ?? defaultDatabasePath();
  const memory = dbPath === ':memory:';
  const createdDatabase = !memory && !existsSync(dbPath);
  const store = openStore({ path: dbPath });
  let userFlowsDir: string | null = null;
  if (options.userFlowsDir !== undefined) userFlowsDir = options.userFlowsDir;
  else userFlowsDir = appFlowsDirOf(dbPath);
  if (userFlowsDir !== null) mkdirSync(userFlowsDir, { recursive: true });

  // Before the service: the presets it runs send their telemetry here (issue #11 part 5).
  const otel = await startHostReceiver(store, options.otelPort ?? null, log);
  const service = createHivewatchService({
    store,
    telemetry: () => (otel ? { endpoint: otel.endpoint, token: otel.token } : null),
    examplesDir: options.examplesDir ?? paths.examplesDir,
    userFlowsDir,
    ...(options.globalConcurrency !== undefined ? { globalConcurrency: options.globalConcurrency } : {}),
    defaultAgent: options.defaultAgent ?? process.env.HIVEWATCH_AGENT ?? null,
  });
  const staticDir = options.staticDir === undefined ? paths.rendererDist : options.staticDir;
  let shell;
  try {
    shell = await startHttpShell({
      service,
      ...(options.port !== undefined ? { port: options.port } : {}),
      // A link keeps working across restarts: the token is the database's own, made once.
      ...(options.token !== undefined ? { token: options.token } : memory ? {} : { token: store.secret('http.token', newToken) }),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      staticDir,
      log,
    });
  } catch (error) {
    await service.close();
    await otel?.close();
    store.close();
    throw error;
  }
  const stopDemo = options.demo ? startDemo(service, { log }) : null;

  let window: ChromiumWindow | null = null;
  let openSkipped: string | null = null;
  if (options.open) {
    const chromium = findChromium();
    if (chromium === null) openSkipped = 'no Chromium found (install chromium or set CHROME_PATH)';
    else if (!hasDisplay()) openSkipped = 'no display (DISPLAY / WAYLAND_DISPLAY unset)';
    else window = openChromiumApp(chromium, shell.url);
  }

  let closed: Promise<void> | null = null;
  return {
    url: shell.url,
    origin: shell.origin,
    token: shell.token,
    port: shell.port,
    dbPath,
    createdDatabase,
    userFlowsDir,
    renderer: hasRenderer(staticDir),
    service,
    store,
    window,
    openSkipped,
    otel,
    close: () => {
      closed ??= (async () => {
        stopDemo?.();
        window?.close();
        await shell.close();
        await otel?.close();
        await service.close();
        store.close();
      })();
      return closed;
    },
  };
}
