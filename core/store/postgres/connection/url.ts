/**
 * What a PostgreSQL URL is and how it may be shown: plain string work, without the driver, so a
 * process that only opens a SQLite file never loads `pg` (about 40 ms at every start).
 */

const URL_PREFIX = /^postgres(?:ql)?:\/\//i;

export function isPostgresUrl(text: string): boolean {
  return URL_PREFIX.test(text);
}

export const REDACTED = '***';

/**
 * The URL with its password (userinfo or `?password=`) replaced by `***`: the only form of a
 * URL that goes into a message, a log line or `store.location`. Works on text that is not a
 * valid URL too (it is used in the error that says so).
 */
export function redactUrl(url: string): string {
  const parts = splitAuthority(url);
  let redacted = url;
  if (parts) {
    const colon = parts.userinfo.indexOf(':');
    if (colon >= 0) redacted = url.slice(0, parts.start + colon + 1) + REDACTED + url.slice(parts.start + parts.userinfo.length);
  }
  return redacted.replace(/([?&]password=)[^&#]*/gi, `$1${REDACTED}`);
}

/**
 * The authority of `scheme://userinfo@host:port/...` as written, where it starts, and its
 * userinfo (up to the LAST '@', so a raw '@' in a password stays inside it) and host:port.
 */
export function splitAuthority(url: string): { start: number; userinfo: string; hostPort: string } | null {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd < 0) return null;
  const start = schemeEnd + 3;
  const rest = url.slice(start);
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const at = authority.lastIndexOf('@');
  return { start, userinfo: at < 0 ? '' : authority.slice(0, at), hostPort: authority.slice(at + 1) };
}
