import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { vi } from 'vitest';
import type { HivewatchEvent, RunDetail, RunStatus } from '../../core/service/api.js';

/**
 * A real `hivewatch serve` on a temporary database and a free port, as an operator starts it;
 * the URL (with its token) is read from what it prints. `api` is a small authenticated client
 * for setting the scene (starting runs) and for waiting on the server's state.
 */

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'hivewatch.js');

export interface ServerHandle {
  url: string;
  origin: string;
  token: string;
  dir: string;
  /** The `serve` process (its memory is read from /proc by journeys that bound it). */
  pid: number;
  /** The database `serve` opened: a file path, or a postgres:// URL when `db` named one. */
  dbPath: string;
  flowsDir: string;
  api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  startRun(flow: string, options?: { virtualClock?: boolean; maxSteps?: number }): Promise<string>;
  /** Polls the server until the run reaches one of the statuses. */
  waitForRun(runId: string, statuses: readonly RunStatus[], timeoutMs?: number): Promise<RunDetail>;
  stop(): Promise<void>;
  output(): string;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `hivewatch-e2e-${prefix}-`));
}

export function writeFlows(dir: string, flows: Record<string, string>): string {
  const flowsDir = join(dir, 'flows');
  mkdirSync(flowsDir, { recursive: true });
  for (const [name, source] of Object.entries(flows)) writeFileSync(join(flowsDir, name), source);
  return flowsDir;
}

function stopChild(child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The environment a journey's `hivewatch` process runs in: this machine's, with the OS data
 * directory moved under `dir` — a team database keeps this machine's flows there, and a journey
 * must leave nothing in the operator's own (see `defaultDatabasePath`).
 */
export function isolatedEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, XDG_DATA_HOME: join(dir, 'xdg') };
}

/**
 * `port`: a fixed port (a restart on the port of a stopped server); default a free one.
 * `db`: the database to serve (a postgres:// URL, say); default `hivewatch.db` in `dir`.
 * `args`: more `serve` options (`--otel-port off`).
 */
export async function startServer(
  options: { dir?: string; flows?: Record<string, string>; keepDir?: boolean; port?: number; db?: string; args?: readonly string[] } = {},
): Promise<ServerHandle> {
  const dir = options.dir ?? tempDir('server');
  const flowsDir = writeFlows(dir, options.flows ?? {});
  const dbPath = options.db ?? join(dir, 'hivewatch.db');
  // A temp dir of its own: what the product keeps in it (template repositories, worktrees) goes
  // with `dir`, never into the temp dir that every other test run on the machine shares.
  const serverTmp = join(dir, 'tmp');
  mkdirSync(serverTmp, { recursive: true });
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(options.port ?? 0), '--db', dbPath, ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...isolatedEnv(dir), HIVEWATCH_SHELL: 'browser', TMPDIR: serverTmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`hivewatch serve printed no URL within 30 s:\n${out}`)), 30_000);
    const check = (): void => {
      const match = /Open:\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hivewatch serve exited with ${code}:\n${out}`));
    });
  });
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? '';
  const origin = parsed.origin;

  const api = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };

  const handle: ServerHandle = {
    url,
    origin,
    token,
    dir,
    pid: child.pid!,
    dbPath,
    flowsDir,
    api,
    async startRun(flow, runOptions = {}) {
      const { runId } = await api<{ runId: string }>('POST', '/api/runs', { flow, ...runOptions });
      return runId;
    },
    waitForRun(runId, statuses, timeoutMs = 45_000) {
      // On timeout vitest fails with the last "is X, not Y" seen.
      return vi.waitFor(
        async () => {
          const detail = await api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
          if (!statuses.includes(detail.run.status)) throw new Error(`run ${runId} is ${detail.run.status}, not ${statuses.join('|')}`);
          return detail;
        },
        { timeout: timeoutMs, interval: 100 },
      );
    },
    async stop() {
      process.off('exit', killOnExit);
      await stopChild(child);
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    },
    output: () => out,
  };
  return handle;
}

/** Events of a run from the server's journal. */
export function eventsOf(server: ServerHandle, runId: string): Promise<HivewatchEvent[]> {
  return server.api<HivewatchEvent[]>('GET', `/api/runs/${encodeURIComponent(runId)}/events?limit=1000`);
}

/**
 * `hivewatch run <flow> --db <db> --json` in a child, SIGKILLed once `until` matches an event
 * it printed: a host dying mid-run. Resolves with the run id.
 */
export async function killRunMidway(flowPath: string, dbPath: string, until: (event: HivewatchEvent) => boolean): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', flowPath, '--db', dbPath, '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let buffer = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the run never reached the kill point:\n${buffer}\n${err}`));
    }, 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split('\n').slice(0, -1)) {
        let event: HivewatchEvent;
        try {
          event = JSON.parse(line) as HivewatchEvent;
        } catch {
          continue;
        }
        if (until(event)) {
          clearTimeout(timer);
          child.once('exit', () => resolveRun(event.runId));
          child.kill('SIGKILL');
          return;
        }
      }
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') {
        clearTimeout(timer);
        reject(new Error(`hivewatch run ended (${code}) before the kill point:\n${buffer}\n${err}`));
      }
    });
  });
}
