import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell, type HttpShell } from './http.js';
import { queryInput } from './routes.js';
import { CONTENT_SECURITY_POLICY } from '../shell-common/content-policy.js';
import { checkBearer, isAllowedHost, isAllowedOrigin } from './security.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/**
 * A raw request (node:http, so Host and Origin are exactly what the test says; fetch would set
 * its own). Resolves with whatever the server answered.
 */
function raw(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {}, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = undefined;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

describe('browser shell HTTP security and errors', () => {
  let dir: string;
  let store: HivewatchStore;
  let service: HivewatchService;
  let shell: HttpShell;
  let host: string;
  let auth: Record<string, string>;

  const get = (path: string, headers: Record<string, string> = {}) => raw(shell.port, { path, headers: { host, ...auth, ...headers } });
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    raw(shell.port, { method: 'POST', path, body, headers: { host, ...auth, 'content-type': 'application/json', ...headers } });

  /** After every refusal the server still answers a good request. */
  const stillServing = async (): Promise<void> => {
    const reply = await get('/api/runs');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ items: expect.any(Array) });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hivewatch-http-'));
    store = await openStore({ path: join(dir, 'hivewatch.db') });
    service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, clock: 'virtual' });
    shell = await startHttpShell({ service, staticDir: null, log: () => undefined });
    host = `127.0.0.1:${shell.port}`;
    auth = { authorization: `Bearer ${shell.token}` };
  });

  afterAll(async () => {
    await shell?.close();
    await service?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds 127.0.0.1 on a free port and prints a URL with the token', async () => {
    expect(shell.server.address()).toMatchObject({ address: '127.0.0.1' });
    expect(shell.port).toBeGreaterThan(0);
    expect(shell.url).toBe(`http://127.0.0.1:${shell.port}/?token=${shell.token}`);
    expect(shell.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('missing or wrong token → 401, on every /api/ route including the stream', async () => {
    for (const path of ['/api/runs', '/api/flows', '/api/stream', '/api/nothing-here']) {
      const missing = await raw(shell.port, { path, headers: { host } });
      expect(missing.status).toBe(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      expect(missing.json).toEqual({
        error: { code: 'unauthorized', message: 'missing token: send Authorization: Bearer <token> (the token is in the URL Hivewatch printed)' },
      });
    }
    const wrong = await get('/api/runs', { authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({
      error: {
        code: 'unauthorized',
        message: 'wrong token: this server uses another token (each database keeps its own: open the URL `hivewatch serve` printed)',
      },
    });
    expect((await get('/api/runs', { authorization: `Basic ${shell.token}` })).status).toBe(401);
    // The token in the query string is not a credential: only the header is.
    expect((await raw(shell.port, { path: `/api/runs?token=${shell.token}`, headers: { host } })).status).toBe(401);
    const startWithoutToken = await raw(shell.port, { method: 'POST', path: '/api/runs', headers: { host }, body: '{"flow":"examples/01-happy-path.prose"}' });
    expect(startWithoutToken.status).toBe(401);
    expect((await service.listRuns({})).items).toHaveLength(0);
    await stillServing();
  });

  it('sets no cookie, takes no cookie as a credential, and expires the access cookies older versions left', async () => {
    const name = `hivewatch_token_${shell.port}`;
    const first = await get('/api/runs');
    expect(first.status).toBe(200);
    expect(first.headers['set-cookie']).toBeUndefined();

    // A leftover cookie (an older version set it, for this port or another) opens nothing: API and stream alike.
    const cookieOnly = { host, cookie: `other=1; ${name}=${shell.token}; hivewatch_token_${shell.port + 1}=${shell.token}` };
    const viaCookie = await raw(shell.port, { path: '/api/runs', headers: cookieOnly });
    expect(viaCookie.status).toBe(401);
    expect(viaCookie.json).toMatchObject({ error: { message: expect.stringMatching(/^missing token/) } });
    // ... and the browser is told to forget both (same name and path), not the unrelated one.
    expect(viaCookie.headers['set-cookie']).toEqual([
      `${name}=; Path=/api; Max-Age=0; HttpOnly; SameSite=Strict`,
      `hivewatch_token_${shell.port + 1}=; Path=/api; Max-Age=0; HttpOnly; SameSite=Strict`,
    ]);
    const started = await raw(shell.port, {
      method: 'POST',
      path: '/api/runs',
      headers: { ...cookieOnly, 'content-type': 'application/json' },
      body: '{"flow":"examples/01-happy-path.prose"}',
    });
    expect(started.status).toBe(401);
    expect((await service.listRuns({})).items).toHaveLength(0);
    const stream = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: shell.port, path: '/api/stream', headers: cookieOnly, setHost: false }, (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    expect(stream).toBe(401);

    // The header still decides, and a leftover cookie beside a good header is expired too.
    const withHeader = await get('/api/runs', { cookie: `${name}=${shell.token}` });
    expect(withHeader.status).toBe(200);
    expect(withHeader.headers['set-cookie']).toEqual([`${name}=; Path=/api; Max-Age=0; HttpOnly; SameSite=Strict`]);
    const wrongHeader = await raw(shell.port, { path: '/api/runs', headers: { host, authorization: 'Bearer nope', cookie: `${name}=${shell.token}` } });
    expect(wrongHeader.status).toBe(401);
    expect(wrongHeader.json).toMatchObject({ error: { message: expect.stringMatching(/^wrong token/) } });
  });

  it('foreign Host or Origin → 403, even with the right token', async () => {
    const rebound = await get('/api/runs', { host: `evil.example:${shell.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.json).toEqual({
      error: { code: 'forbidden_host', message: `Host "evil.example:${shell.port}" is not allowed; use http://127.0.0.1:${shell.port}/` },
    });
    expect((await get('/api/runs', { host: '127.0.0.1:1' })).status).toBe(403);
    expect((await get('/', { host: 'evil.example' })).status).toBe(403);

    const foreign = await get('/api/runs', { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toEqual({ error: { code: 'forbidden_origin', message: 'Origin "http://evil.example" is not allowed' } });
    const cancel = await post('/api/runs/run_x/cancel', '{}', { origin: `http://127.0.0.1:${shell.port + 1}` });
    expect(cancel.status).toBe(403);
    expect((await get('/api/runs', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);

    expect((await get('/api/runs', { origin: `http://127.0.0.1:${shell.port}` })).status).toBe(200);
    expect((await get('/api/runs', { host: `localhost:${shell.port}`, origin: `http://localhost:${shell.port}` })).status).toBe(200);
    await stillServing();
  });

  it('malformed JSON, a schema violation or a 2 MiB body → 400 with a message; the server keeps serving', async () => {
    const malformed = await post('/api/runs', '{"flow": ');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ error: { code: 'invalid_json', message: expect.stringMatching(/^request body is not valid JSON: /) } });
    await stillServing();

    const schema = await post('/api/runs', JSON.stringify({ flow: 'examples/01-happy-path.prose', maxSteps: 'many' }));
    expect(schema.status).toBe(400);
    expect(schema.json).toEqual({ error: { code: 'invalid_input', message: 'maxSteps: must be a number' } });
    const notObject = await post('/api/runs/run_x/cancel', '[1, 2]');
    expect(notObject.json).toEqual({ error: { code: 'invalid_input', message: 'input must be an object' } });
    const query = await get('/api/runs?limit=abc&sort=fastest');
    expect(query.json).toEqual({
      error: {
        code: 'invalid_input',
        message:
          'sort: must be one of -started, started, -ended, ended, -duration, duration, -errors, errors, -attempts, attempts, -step, step, status, -status, flow, -flow; limit: must be a number',
      },
    });
    const twice = await get('/api/errors/counts?by=code&by=flow');
    expect(twice.json).toEqual({ error: { code: 'invalid_input', message: 'by: given more than once' } });
    const extra = await get('/api/flows?color=red');
    expect(extra.json).toEqual({ error: { code: 'invalid_input', message: 'unknown field "color"' } });
    await stillServing();

    const huge = Buffer.alloc(2 * 1024 * 1024, 'a');
    const oversized = await post('/api/flows/check', huge);
    expect(oversized.status).toBe(413);
    expect(oversized.json).toEqual({ error: { code: 'payload_too_large', message: 'request body is larger than 1048576 bytes (1 MiB)' } });
    await stillServing();

    const started = await post('/api/runs', JSON.stringify({ flow: 'examples/01-happy-path.prose' }));
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({ runId: expect.stringMatching(/^run_/) });
    await service.whenFinished((started.json as { runId: string }).runId);
    const detail = await get(`/api/runs/${(started.json as { runId: string }).runId}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ run: { status: 'completed' } });
  });

  it("says the server's own time on each API answer in a Server-Timing header, and not on refusals before the API", async () => {
    const timing = /^app;dur=(\d+\.\d)$/;
    const route = await get('/api/runs');
    expect(route.headers['server-timing']).toMatch(timing);
    const batch = await post('/api/batch', JSON.stringify({ calls: [{ method: 'listRuns', input: {} }] }));
    expect(batch.status).toBe(200);
    expect(batch.headers['server-timing']).toMatch(timing);
    expect((await get('/api/nothing-here')).headers['server-timing']).toBeUndefined();
    expect((await raw(shell.port, { path: '/api/runs', headers: { host } })).headers['server-timing']).toBeUndefined();
  });

  it('unknown routes → 404, wrong methods → 405, unknown runs → 404, all as JSON', async () => {
    expect((await get('/api/nothing')).json).toEqual({ error: { code: 'not_found', message: 'no route GET /api/nothing' } });
    const wrongMethod = await raw(shell.port, { method: 'DELETE', path: '/api/runs', headers: { host, ...auth } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, POST');
    const missing = await get('/api/runs/run_missing');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: { code: 'run_not_found', message: 'no run run_missing' } });
    const skip = await post('/api/runs/run_missing/tasks/1%3A0/skip-backoff', '');
    expect(skip.status).toBe(404);
    await stillServing();
  });

  it('serves the built-in page with a strict CSP and no inline script when renderer-dist is absent', async () => {
    const page = await raw(shell.port, { path: `/?token=${shell.token}`, headers: { host } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('<script src="/fallback.js" defer></script>');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).not.toMatch(/\son[a-z]+=/);
    const script = await raw(shell.port, { path: '/fallback.js', headers: { host } });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('localStorage.setItem(TOKEN_KEY');
    expect(script.text).toContain('history.replaceState');
    expect((await raw(shell.port, { path: '/nope.js', headers: { host } })).status).toBe(404);
  });
});

describe('browser shell serving renderer-dist', () => {
  it('serves files from the built renderer, the app for client routes, and nothing outside the folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hivewatch-static-'));
    const dist = join(dir, 'renderer-dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(dist, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'secret');
    const store = await openStore({ path: ':memory:' });
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR });
    const shell = await startHttpShell({ service, staticDir: dist });
    const host = `127.0.0.1:${shell.port}`;
    try {
      const index = await raw(shell.port, { path: '/', headers: { host } });
      expect(index.text).toContain('./assets/app.js');
      expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(index.headers['cache-control']).toBe('no-store');
      const asset = await raw(shell.port, { path: '/assets/app.js', headers: { host } });
      expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((await raw(shell.port, { path: '/runs/run_1', headers: { host } })).text).toContain('./assets/app.js');
      for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/%00']) {
        const reply = await raw(shell.port, { path, headers: { host } });
        expect(reply.text).not.toContain('secret');
      }
      expect((await raw(shell.port, { path: '/assets/missing.js', headers: { host } })).status).toBe(404);
    } finally {
      await shell.close();
      await service.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('guards as functions', () => {
  it('checks Host, Origin and the bearer token', async () => {
    expect(isAllowedHost('127.0.0.1:8080', 8080)).toBe(true);
    expect(isAllowedHost('LOCALHOST:8080', 8080)).toBe(true);
    expect(isAllowedHost('127.0.0.1', 8080)).toBe(false);
    expect(isAllowedHost('127.0.0.2:8080', 8080)).toBe(false);
    expect(isAllowedHost(undefined, 8080)).toBe(false);
    expect(isAllowedOrigin(undefined, 8080)).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:8080', 8080)).toBe(true);
    expect(isAllowedOrigin('null', 8080)).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:8080', 8080)).toBe(false);
    expect(checkBearer('Bearer abc', 'abc')).toBe('ok');
    expect(checkBearer('bearer   abc ', 'abc')).toBe('ok');
    expect(checkBearer('Bearer abcd', 'abc')).toBe('wrong');
    expect(checkBearer(undefined, 'abc')).toBe('missing');
  });

  it('reads query strings into inputs', async () => {
    expect(queryInput(new URLSearchParams('status=running,failed&status=queued&limit=5&flow=x'), { numbers: ['limit'], lists: ['status'] })).toEqual({
      status: ['running', 'failed', 'queued'],
      limit: 5,
      flow: 'x',
    });
    expect(queryInput(new URLSearchParams('limit=5x'), { numbers: ['limit'] })).toEqual({ limit: '5x' });
  });
});
