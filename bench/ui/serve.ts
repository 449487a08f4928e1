import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A real `hivewatch serve` for the UI benches: started as an operator starts it, stopped with SIGTERM. */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface Serve {
  /** The URL `serve` printed (with its token). */
  url: string;
  /** The OTLP receiver's endpoint `serve` printed, or null when it has none. */
  otelEndpoint: string | null;
  child: ChildProcess;
}

/**
 * `env`: variables set for this serve beside the bench's own (HIVEWATCH_READ_WORKERS for a
 * baseline); `args`: more of `serve`'s options (`--otel-port 0` for a receiver on a free port).
 */
export async function startServe(dbPath: string, env: Readonly<Record<string, string>> = {}, args: readonly string[] = []): Promise<Serve> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'hivewatch.js'), 'serve', '--port', '0', '--db', dbPath, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const printed = await new Promise<{ url: string; otelEndpoint: string | null }>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL:\n${out}`)), 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before printing its URL:\n${out}`));
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      // The banner's last line names the receiver (or says there is none).
      const m = /Open:\s+(\S+)[\s\S]*OTel:\s+(\S+)/.exec(out);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolveUrl({ url: m[1], otelEndpoint: m[2].startsWith('http') ? m[2] : null });
      }
    });
  });
  return { ...printed, child };
}

export async function stopServe(serve: Serve | null): Promise<void> {
  if (!serve || serve.child.exitCode !== null || serve.child.signalCode !== null) return;
  const exited = new Promise((r) => serve.child.once('exit', r));
  serve.child.kill('SIGTERM');
  await exited;
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

/** The HTTP API of the serve at `url`, with the token the URL carries. */
export function apiOf(url: string): Api {
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? '';
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${parsed.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return { get: (path) => call('GET', path), post: (path, body) => call('POST', path, body) };
}
