import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { wantsHelp } from '../core/cli/help.js';
import { ExitCode } from '../core/cli/io.js';
import { otelIdleOf, otelPortOf } from '../core/otel/host.js';
import { detectElectron } from './launcher.js';
import { startServer, type RunningServer } from './main.js';
import { packagePaths } from '../shell-common/paths.js';

/**
 * `hivewatch serve` and `hivewatch start` (bin/hivewatch.js sends both here, so core/ never
 * imports a shell).
 *
 *   serve [--port N] [--db PATH] [--demo]        the browser shell alone; prints the URL with its token
 *   start [--port N] [--db PATH] [--demo]        the desktop window: Electron where its binary is
 *         [--browser] [--no-open]                installed, else the browser shell in Chromium's app
 *                                                mode, else the printed URL
 */

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

const USAGE = `Usage:
  hivewatch serve [--port N] [--db PATH] [--demo] [--otel-port N|off] [--otel-idle DURATION]
  hivewatch start [--port N] [--db PATH] [--demo] [--browser] [--no-open] [--otel-port N|off] [--otel-idle DURATION]
`;

interface Flags {
  port: number | undefined;
  /** The OTLP receiver's port (default HIVEWATCH_OTEL_PORT, else 4318), null for `off`. */
  otelPort: number | null;
  otelPortText: string | undefined;
  /** The quiet period that ends an agent session (--otel-idle, else HIVEWATCH_OTEL_IDLE, else 2 minutes). */
  otelIdleMs: number;
  otelIdleText: string | undefined;
  db: string | undefined;
  demo: boolean;
  browser: boolean;
  open: boolean;
}

function parse(argv: readonly string[], command: 'serve' | 'start'): Flags {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      'otel-port': { type: 'string' },
      'otel-idle': { type: 'string' },
      db: { type: 'string' },
      demo: { type: 'boolean', default: false },
      ...(command === 'start' ? { browser: { type: 'boolean', default: false }, 'no-open': { type: 'boolean', default: false } } : {}),
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  let port: number | undefined;
  if (values.port !== undefined) {
    const text = String(values.port);
    if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) throw new Error(`--port needs a port number from 0 to 65535, got "${text}"`);
    port = Number(text);
  }
  const db = values.db === undefined ? undefined : String(values.db);
  if (db !== undefined && db.trim() === '') throw new Error('--db needs a file path or a postgres:// URL');
  const otelPortText = values['otel-port'] === undefined ? undefined : String(values['otel-port']);
  const otelIdleText = values['otel-idle'] === undefined ? undefined : String(values['otel-idle']);
  return {
    port,
    otelPort: otelPortOf(otelPortText),
    otelPortText,
    otelIdleMs: otelIdleOf(otelIdleText),
    otelIdleText,
    db,
    demo: values.demo === true,
    browser: (values as Record<string, unknown>).browser === true,
    open: (values as Record<string, unknown>)['no-open'] !== true,
  };
}

function banner(server: RunningServer, shell: string): string {
  const curl = `curl -H "Authorization: Bearer ${server.token}" ${server.origin}/api/runs`;
  return [
    `Hivewatch ${shell} is running.`,
    `  Open:     ${server.url}`,
    `  API:      ${curl}`,
    `  Database: ${server.store.location}${server.createdDatabase ? ' (created)' : ''}`,
    `  Page:     ${server.renderer ? 'renderer-dist/' : 'built-in page (build the full window with `npx vite build`)'}`,
    `  OTel:     ${server.otel ? `${server.otel.endpoint} (agents' telemetry; \`hivewatch otel-env --db ${server.store.location}\` prints their settings)` : 'no receiver'}`,
    '',
  ].join('\n');
}

async function listFlowsText(server: RunningServer): Promise<string> {
  const flows = await server.service.listFlows();
  const bundled = flows.filter((f) => f.bundled);
  const own = flows.filter((f) => !f.bundled);
  const lines = [`Bundled examples (${bundled.length}):`, ...bundled.map((f) => `  ${f.id}${f.ok ? '' : '  (does not check)'}`)];
  if (server.userFlowsDir !== null)
    lines.push(
      `Your flows (${own.length}) in ${server.userFlowsDir}${own.length ? ':' : ''}`,
      ...own.map((f) => `  ${f.id}${f.ok ? '' : '  (does not check)'}`),
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Catches SIGINT / SIGTERM from now on (installed before the URL is printed, so a signal sent as
 * soon as it appears cannot hit Node's default "terminate now" disposition).
 */
function catchStopSignals(io: CliIo): { stopped: Promise<void>; release(): void } {
  let interrupts = 0;
  let resolveStop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStop = resolve));
  const onSignal = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interruptedTwice);
    io.err('\nStopping: cancelling runs still going (they can be resumed later)…\n');
    resolveStop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Serves until a stop signal (or the window closing), then closes everything; resolves the exit code. */
async function serveUntilStopped(server: RunningServer, io: CliIo, signals: ReturnType<typeof catchStopSignals>, until?: Promise<unknown>): Promise<number> {
  try {
    const windowClosed = until?.then(() => io.err('The window was closed; stopping Hivewatch.\n'));
    await Promise.race([signals.stopped, ...(windowClosed ? [windowClosed] : [])]);
  } finally {
    signals.release();
  }
  await server.close();
  return ExitCode.ok;
}

async function browserShell(flags: Flags, io: CliIo, open: boolean, why: string | null): Promise<number> {
  const signals = catchStopSignals(io);
  let server: RunningServer;
  // --db, else HIVEWATCH_DB (a file or a team database's postgres:// URL), else the default file.
  const dbPath = flags.db ?? (process.env.HIVEWATCH_DB || undefined);
  try {
    server = await startServer({
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(dbPath !== undefined ? { dbPath } : {}),
      otelPort: flags.otelPort,
      otelIdleMs: flags.otelIdleMs,
      demo: flags.demo,
      open,
      log: (line) => io.err(`${line}\n`),
    });
  } catch (error) {
    signals.release();
    if (flags.port === undefined || (error as NodeJS.ErrnoException | null)?.code !== 'EADDRINUSE') throw error;
    // The operator asked for this port: one line with the way out, not a stack.
    io.err(
      `hivewatch: port ${flags.port} on 127.0.0.1 is in use by another program (another Hivewatch?); stop it, or choose another with --port N (--port 0 takes a free one)\n`,
    );
    return ExitCode.failed;
  }
  io.out(banner(server, 'browser shell'));
  io.out(await listFlowsText(server));
  if (why) io.out(`(${why})\n`);
  if (server.window) io.out('Opened in a Chromium app window; closing it stops Hivewatch.\n');
  else if (open && server.openSkipped) io.out(`Not opening a window: ${server.openSkipped}. Open the URL above in a browser.\n`);
  io.out('Press Ctrl+C to stop.\n');
  return serveUntilStopped(server, io, signals, server.window?.exited);
}

async function electronShell(binary: string, flags: Flags, io: CliIo): Promise<number> {
  const { root, distDir } = packagePaths();
  const args = [join(distDir, 'electron', 'main.js')];
  if (flags.db !== undefined) args.push('--db', flags.db);
  if (flags.demo) args.push('--demo');
  if (flags.otelPortText !== undefined) args.push('--otel-port', flags.otelPortText);
  if (flags.otelIdleText !== undefined) args.push('--otel-idle', flags.otelIdleText);
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  io.out(`Opening the Hivewatch window (Electron: ${binary})\n`);
  const child = spawn(binary, args, { stdio: 'inherit', env, cwd: root });
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    return await new Promise<number>((resolve) => {
      child.once('error', (error) => {
        io.err(`hivewatch start: could not launch Electron: ${error.message}\n`);
        resolve(ExitCode.failed);
      });
      child.once('exit', (code) => resolve(code ?? 0));
    });
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}

/**
 * node:util's words for an unknown option suggest passing it after `--` as a positional, which
 * these commands never take; say what the core CLI says instead.
 */
function usageMessage(error: Error & { code?: string }): string {
  const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(error.message) : null;
  return unknown ? `unknown option ${unknown[1] as string}` : error.message;
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'serve' && command !== 'start') {
    io.err(USAGE);
    return ExitCode.usage;
  }
  if (wantsHelp(rest)) {
    io.out(USAGE);
    return ExitCode.ok;
  }
  let flags: Flags;
  try {
    flags = parse(rest, command);
  } catch (error) {
    io.err(`hivewatch ${command}: ${usageMessage(error as Error)}\n${USAGE}`);
    return ExitCode.usage;
  }
  if (command === 'serve') return browserShell(flags, io, false, null);

  const forceBrowser = flags.browser || io.env.HIVEWATCH_SHELL === 'browser';
  const electron = forceBrowser ? ({ ok: false, reason: 'the browser shell was asked for' } as const) : detectElectron(packagePaths().root, io.env);
  if (electron.ok) return electronShell(electron.binary, flags, io);
  return browserShell(flags, io, flags.open, `no Electron window: ${electron.reason}`);
}
