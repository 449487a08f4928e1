import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The browser shell's guards, as plain functions: a loopback-only listener, a token made at each
 * launch, and Host / Origin checks (a page on another origin, or one reached through a DNS name
 * rebound to 127.0.0.1, is refused before anything else happens).
 */

export const LOOPBACK = '127.0.0.1';

/** A fresh bearer token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The Host header values that name this server: 127.0.0.1:port or localhost:port. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const value = host.toLowerCase();
  return value === `${LOOPBACK}:${port}` || value === `localhost:${port}`;
}

/** No Origin (same-origin GETs, curl) or exactly this server's origin. */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  const value = origin.toLowerCase();
  return value === `http://${LOOPBACK}:${port}` || value === `http://localhost:${port}`;
}

/** Fetch metadata: a request a browser marks as coming from another site is refused. */
export function isAllowedFetchSite(site: string | undefined): boolean {
  return site === undefined || site === 'same-origin' || site === 'none';
}

export type TokenCheck = 'ok' | 'missing' | 'wrong';

/** `Authorization: Bearer <token>`, compared in constant time. */
export function checkBearer(header: string | undefined, token: string): TokenCheck {
  if (header === undefined || header.trim() === '') return 'missing';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return 'wrong';
  const given = Buffer.from(match[1] as string, 'utf8');
  const expected = Buffer.from(token, 'utf8');
  if (given.length !== expected.length) return 'wrong';
  return timingSafeEqual(given, expected) ? 'ok' : 'wrong';
}

/**
 * No access cookie: cookies are scoped by host and path but not by port, so a
 * cookie this server set would be sent to every other listener on 127.0.0.1. The window keeps the
 * token in its origin's localStorage (scoped by port) and sends it as `Authorization: Bearer`
 * (docs/decisions/0017-browser-shell-access.md, "The access credential stays on its port"). Browsers that ran an older
 * Hivewatch still hold `hivewatch_token_<port>` cookies (30 days, Path=/api): any request that
 * carries one is answered with a `Set-Cookie` that expires it, and the cookie is never a credential.
 */
const LEGACY_TOKEN_COOKIE = /^hivewatch_token_\d+$/;

/** The names of the leftover access cookies in a `Cookie` header (empty when none). */
export function legacyTokenCookies(header: string | undefined): string[] {
  if (header === undefined) return [];
  const names: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim();
    if (LEGACY_TOKEN_COOKIE.test(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

/** `Set-Cookie` values that make the browser drop each named leftover cookie (same name and path). */
export function expireCookies(names: readonly string[]): string[] {
  return names.map((name) => `${name}=; Path=/api; Max-Age=0; HttpOnly; SameSite=Strict`);
}
