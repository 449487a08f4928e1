import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The browser shell's guards, as plain functions: a loopback-only listener, a token made at each
 * launch, and Host / Origin checks (a page on another origin, or one reached through a DNS name
 * rebound to 127.0.0.1, is refused before anything else happens).
 */

/**
 * The renderer's content security policy, the same in both shells: only the app's own scripts,
 * styles, images and connections; no inline script, no eval, no plugins, no framing, no forms.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every response of the browser shell carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  // The page's first URL carries the token: never send it anywhere as a referrer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

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
 * The access cookie (docs/decisions.md, "Links that keep working"): once a request proved the
 * token with `Authorization: Bearer`, the answer sets it, so another tab of the same browser (a
 * copied link without `?token=`) keeps access. Cookies are not scoped by port, so the name
 * carries it: two servers on 127.0.0.1 (two databases) never overwrite each other's cookie.
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Path=/api
 * (only the API and the stream receive it), 30 days.
 */
export const TOKEN_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

export function tokenCookieName(port: number): string {
  return `hivewatch_token_${port}`;
}

/** The `Set-Cookie` value that stores `token` for the server on `port`. */
export function tokenCookie(token: string, port: number): string {
  return `${tokenCookieName(port)}=${token}; Path=/api; Max-Age=${TOKEN_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict`;
}

/** The value of cookie `name` in a `Cookie` header (undefined when absent). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface AccessCheck {
  result: TokenCheck;
  /** What proved (or failed to prove) the token; null when neither was sent. */
  via: 'bearer' | 'cookie' | null;
}

/**
 * An API request's access: the `Authorization` header when it has one (a wrong header is wrong
 * even with a right cookie), else the port's cookie; neither is "missing".
 */
export function checkAccess(headers: { authorization: string | undefined; cookie: string | undefined }, token: string, port: number): AccessCheck {
  if (headers.authorization !== undefined && headers.authorization.trim() !== '') {
    return { result: checkBearer(headers.authorization, token), via: 'bearer' };
  }
  const cookie = cookieValue(headers.cookie, tokenCookieName(port));
  if (cookie === undefined || cookie === '') return { result: 'missing', via: null };
  return { result: sameSecret(cookie, token) ? 'ok' : 'wrong', via: 'cookie' };
}
