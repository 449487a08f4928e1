import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startEgressGuard, type EgressGuard } from './egress-guard.js';

let guard: EgressGuard | null = null;
afterEach(async () => {
  await guard?.close();
  guard = null;
});

function viaProxy(g: EgressGuard, options: { method: string; path: string }): Promise<number> {
  const port = Number(new URL(g.url).port);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method, path: options.path });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the egress guard', () => {
  it('refuses a CONNECT tunnel (how HTTPS goes through a proxy) with 403 and writes down where it led', async () => {
    guard = await startEgressGuard();
    expect(await viaProxy(guard, { method: 'CONNECT', path: 'api.anthropic.com:443' })).toBe(403);
    expect(guard.attempts).toEqual(['api.anthropic.com:443']);
  });

  it('refuses a plain request for an absolute URL with 403 and writes it down', async () => {
    guard = await startEgressGuard();
    expect(await viaProxy(guard, { method: 'GET', path: 'http://example.org/update.json' })).toBe(403);
    expect(guard.attempts).toEqual(['http://example.org/update.json']);
  });

  it('gives the proxy variables in both cases, with loopback left out of the proxy', async () => {
    guard = await startEgressGuard();
    const env = guard.env();
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy']) expect(env[name], name).toBe(guard.url);
    expect(env.NO_PROXY?.split(',')).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost']));
    expect(env.no_proxy).toBe(env.NO_PROXY);
  });
});
