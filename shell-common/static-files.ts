import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { FALLBACK_CSS, FALLBACK_HTML, FALLBACK_JS } from './fallback-page.js';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from './content-policy.js';

/**
 * The page itself: the built renderer from renderer-dist/ on the same origin as the API (so the
 * CSP's 'self' covers both), or the built-in page when no renderer was built. Paths are decoded
 * and resolved inside the folder; anything that would leave it is a 404.
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string | Buffer, cache: string): void {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'content-type': type,
    'content-length': payload.length,
    'cache-control': cache,
  });
  res.end(req.method === 'HEAD' ? undefined : payload);
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  send(req, res, 404, 'text/plain; charset=utf-8', 'not found\n', 'no-store');
}

/** Whether a built renderer is there to serve. */
export function hasRenderer(root: string | null): root is string {
  return root !== null && existsSync(join(root, 'index.html'));
}

/** A file under root for a URL path, or null when the path is malformed or leaves root. */
function resolveUnder(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.split(/[\\/]/).includes('..')) return null;
  const base = resolve(root);
  const file = resolve(base, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`);
  return file === base || file.startsWith(base + sep) ? file : null;
}

/**
 * The built window's file for a URL path under `root`: the file itself, the app (index.html) for
 * a client-side route (a path without an extension), or null for a 404 (a missing asset, a path
 * that leaves `root`). `serve` and Electron's app:// protocol both answer with it.
 */
export function rendererFile(root: string, pathname: string): string | null {
  const file = resolveUnder(root, pathname === '/' ? '/index.html' : pathname);
  if (file === null) return null;
  try {
    if (statSync(file).isFile()) return file;
  } catch {
    // Not there: a client-side route or a 404, below.
  }
  return extname(pathname) === '' ? join(root, 'index.html') : null;
}

/**
 * A file of the built window, read in one go. Not with fs/promises: its open, stat, reads and
 * close each wait for a turn of the event loop, and while agents stream telemetry and runs
 * journal on that loop each turn waits behind a write. Under the history bench's load that made
 * index.html and the main chunk 230 ms each (3 and 9 ms quiet), and a window fetches them one
 * after the other before it asks for any data. They are a few hundred kB, in the OS page cache.
 */
export function readRendererFile(file: string): Buffer {
  return readFileSync(file);
}

export async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string, root: string | null): Promise<void> {
  if (!hasRenderer(root)) {
    if (pathname === '/' || pathname === '/index.html') return send(req, res, 200, TYPES['.html'] as string, FALLBACK_HTML, 'no-store');
    if (pathname === '/fallback.js') return send(req, res, 200, TYPES['.js'] as string, FALLBACK_JS, 'no-cache');
    if (pathname === '/fallback.css') return send(req, res, 200, TYPES['.css'] as string, FALLBACK_CSS, 'no-cache');
    return notFound(req, res);
  }
  const file = rendererFile(root, pathname);
  if (file === null) return notFound(req, res);
  const immutable = /[\\/]assets[\\/]/.test(file.slice(root.length));
  const cache = file.endsWith('.html') ? 'no-store' : immutable ? 'public, max-age=31536000, immutable' : 'no-cache';
  send(req, res, 200, contentTypeOf(file), readRendererFile(file), cache);
}
