/**
 * Scope patterns (`scope: ["src/**", "test/**"]`): paths relative to the repository root that an
 * attempt may change. `**` matches any number of path segments, `*` anything within one segment,
 * `?` one character; a pattern naming a folder (`docs` or `docs/`) covers everything under it.
 * Pure, so `check` and the scope enforcer agree on what a pattern means.
 */

export function scopePatternProblem(pattern: string): string | null {
  if (pattern.trim() === '') return 'a scope pattern cannot be empty';
  if (pattern.startsWith('/')) return `scope patterns are relative to the repository root, got "${pattern}"`;
  if (pattern.split('/').includes('..')) return `a scope pattern cannot leave the repository (".."), got "${pattern}"`;
  if (pattern.includes('\\')) return `write scope patterns with "/", got "${pattern}"`;
  return null;
}

function patternRegex(pattern: string): RegExp {
  const trimmed = pattern.replace(/^\.\//, '').replace(/\/$/, '');
  let source = '';
  for (let i = 0; i < trimmed.length; i++) {
    const ch = trimmed[i] as string;
    if (ch === '*' && trimmed[i + 1] === '*') {
      // `a/**/b` also matches `a/b`; a trailing `**` matches everything below.
      const slashAfter = trimmed[i + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (ch === '*') {
      source += '[^/]*';
    } else if (ch === '?') {
      source += '[^/]';
    } else {
      source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  // A pattern also covers everything under the folder it names.
  return new RegExp(`^${source}(?:/.*)?$`);
}

/** A matcher for a set of patterns: true when one of them covers the path. */
export function scopeMatcher(patterns: readonly string[]): (path: string) => boolean {
  const regexes = patterns.map(patternRegex);
  return (path) => regexes.some((r) => r.test(path));
}
