/**
 * A prompt or an agent's output that is a JSON object or array, laid out two spaces a level
 * for reading. The layout is done on the text's own tokens, not by `JSON.parse` and
 * `JSON.stringify`: those would change what the agent wrote (a 20-digit id rounded to a double,
 * `1.0` read back as `1`, escapes rewritten), and the inspector shows the journal as it is.
 * Anything else (plain text, a bare JSON number or string, broken JSON) comes back unchanged.
 */
export function prettyJson(text: string): { text: string; json: boolean } {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('[')) || !parses(trimmed)) return { text, json: false };
  return { text: layout(trimmed), json: true };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** Re-indents valid JSON: strings and literals are copied as written, only whitespace between tokens changes. */
function layout(json: string): string {
  let out = '';
  let depth = 0;
  const newline = (): string => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < json.length; i++) {
    const c = json[i] as string;
    if (c === '"') {
      const end = stringEnd(json, i);
      out += json.slice(i, end + 1);
      i = end;
    } else if (c === '{' || c === '[') {
      const next = nextToken(json, i + 1);
      if (json[next] === (c === '{' ? '}' : ']')) {
        out += c === '{' ? '{}' : '[]';
        i = next;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += `,${newline()}`;
    } else if (c === ':') {
      out += ': ';
    } else if (!WHITESPACE.has(c)) {
      out += c;
    }
  }
  return out;
}

/** Index of the quote closing the string opened at `start`. */
function stringEnd(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    if (json[i] === '\\') i++;
    else if (json[i] === '"') return i;
  }
  return json.length - 1;
}

function nextToken(json: string, from: number): number {
  let i = from;
  while (i < json.length && WHITESPACE.has(json[i] as string)) i++;
  return i;
}
