/**
 * The shared queries write SQLite's `?` placeholders; PostgreSQL numbers them (`$1`, `$2`, …).
 * A `?` inside a string literal, a quoted identifier, a dollar-quoted body or a comment is
 * text, not a parameter, and is left alone. Results are cached per SQL text: the shared
 * queries build a few dozen distinct texts, each numbered once.
 */

const cache = new Map<string, string>();
const CACHE_LIMIT = 2_000;

export function numberPlaceholders(sql: string): string {
  const known = cache.get(sql);
  if (known !== undefined) return known;
  const numbered = scan(sql);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(sql, numbered);
  return numbered;
}

/** Where the quoted or commented span that starts at `i` ends (exclusive), or -1 if none starts there. */
function skipSpan(sql: string, i: number): number {
  const c = sql[i];
  const closeAt = (close: string, from: number): number => {
    const end = sql.indexOf(close, from);
    return end < 0 ? sql.length : end + close.length;
  };
  if (c === "'" || c === '"') {
    // A doubled quote inside is an escaped quote: keep scanning after it.
    let j = i + 1;
    for (;;) {
      const end = sql.indexOf(c, j);
      if (end < 0) return sql.length;
      if (sql[end + 1] === c) j = end + 2;
      else return end + 1;
    }
  }
  if (c === '-' && sql[i + 1] === '-') return closeAt('\n', i + 2);
  if (c === '/' && sql[i + 1] === '*') return closeAt('*/', i + 2);
  if (c === '$') {
    const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(sql.slice(i));
    // `$1` is a parameter, not a tag: tags do not start with a digit.
    if (tag) return closeAt(tag[0], i + tag[0].length);
  }
  return -1;
}

function scan(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const end = skipSpan(sql, i);
    if (end >= 0) {
      out += sql.slice(i, end);
      i = end;
    } else if (sql[i] === '?') {
      out += `$${++n}`;
      i += 1;
    } else {
      out += sql[i];
      i += 1;
    }
  }
  return out;
}
