import { existsSync, mkdirSync } from 'node:fs';
import { appFlowsDirOf } from '../core/service/flows/keys.js';
import { startHostReceiver } from '../core/otel/host.js';
import type { OtlpReceiver } from '../core/otel/receive/receiver.js';
import { startDemo } from '../core/service/demo.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { journalRetryDelays } from '../core/service/runs/journal-env.js';
import { openHostStore } from '../core/service/history/open.js';
import { defaultDatabasePath, isPostgresUrl, readWorkersOf, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell } from './http.js';
import { newToken } from './security.js';
import { findChromium, hasDisplay, openChromiumApp, type ChromiumWindow } from './launcher.js';
import { packagePaths } from '../shell-common/paths.js';
import { hasRenderer } from '../shell-common/static-files.js';

/**
 * The browser shell in one call: open (or create) the database, start the service over it, serve
 * it on 127.0.0.1 with the database's token (created once, kept in its `settings`: a copied link
 * or a restart keeps access; `token` overrides it), and optionally keep demo runs going and open a Chromium
 * app window on it.
 */

export interface StartServerOptions {
  /** 0: a free port. Absent: the port this database's server last had (settings http.port), else a free one. */
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
  /** The quiet period that ends an agent session (docs/otel.md "Sessions"); default 2 minutes. */
  otelIdleMs?: number;
  /**
   * Worker threads that answer the window's reads of a SQLite file at once (core/store/sqlite/read-pool.ts);
   * 0: every read on the one connection. Default: HIVEWATCH_READ_WORKERS, else DEFAULT_READ_WORKERS.
   */
  readWorkers?: number;
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

const PORT_SETTING = 'http.port';

async function rememberedPort(store: HivewatchStore): Promise<number | null> {
  const text = await store.getSetting(PORT_SETTING);
  const port = text !== null && /^\d{1,5}$/.test(text) ? Number(text) : 0;
  return port > 0 && port <= 65_535 ? port : null;
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const paths = packagePaths();
  const log = options.log ?? ((line: string) => console.error(line));
  const dbPath = options.dbPath ?? defaultDatabasePath();
  const memory = dbPath === ':memory:';
  const createdDatabase = !memory && !isPostgresUrl(dbPath) && !existsSync(dbPath);
  const store = await openHostStore({ path: dbPath, readWorkers: options.readWorkers ?? readWorkersOf(process.env) });
  let userFlowsDir: string | null = null;
  if (options.userFlowsDir !== undefined) userFlowsDir = options.userFlowsDir;
  else userFlowsDir = appFlowsDirOf(dbPath);
  if (userFlowsDir !== null) mkdirSync(userFlowsDir, { recursive: true });

  // Before the service: the presets it runs send their telemetry here.
  const otel = await startHostReceiver(store, options.otelPort ?? null, log, options.otelIdleMs);
  const service = await createHivewatchService({
    store,
    telemetry: () => (otel ? { endpoint: otel.endpoint, token: otel.token } : null),
    examplesDir: options.examplesDir ?? paths.examplesDir,
    userFlowsDir,
    ...(options.globalConcurrency !== undefined ? { globalConcurrency: options.globalConcurrency } : {}),
    defaultAgent: options.defaultAgent ?? process.env.HIVEWATCH_AGENT ?? null,
    // A dead host's runs turn interrupted in the window without a restart.
    watchHosts: true,
    journalRetryDelaysMs: journalRetryDelays(process.env),
  });
  const staticDir = options.staticDir === undefined ? paths.rendererDist : options.staticDir;
  // No --port: the port this database's server had last time, so a copied link (and the
  // stored token, kept per origin and so per port) keeps working after a restart; a free one when that is taken.
  const remembered = options.port === undefined && !memory ? await rememberedPort(store) : null;
  const token = options.token ?? (memory ? undefined : await store.secret('http.token', newToken));
  const listen = async (port: number | undefined) =>
    startHttpShell({
      service,
      ...(port !== undefined ? { port } : {}),
      // A link keeps working across restarts: the token is the database's own, made once.
      ...(token !== undefined ? { token } : {}),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      staticDir,
      log,
    });
  let shell;
  try {
    try {
      shell = await listen(remembered ?? options.port);
    } catch (error) {
      if (remembered === null || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      log(`hivewatch: port ${remembered} (this database's last) is taken; using a free one`);
      shell = await listen(0);
    }
    if (options.port === undefined && !memory) await store.setSetting(PORT_SETTING, String(shell.port));
  } catch (error) {
    await service.close();
    await otel?.close();
    await store.close();
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
        // The service first: its attempts end, so the receiver's last look ends the sessions linked to them.
        await service.close();
        await otel?.close();
        await store.close();
      })();
      return closed;
    },
  };
}
