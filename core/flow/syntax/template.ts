import type { Position, Template, TemplatePart } from './ast.js';

/**
 * Strings with `{name}` / `{err.message}` holes. A template is parsed once (by the lexer, with
 * source positions) and rendered many times (by the engine, once per attempt), so nothing is
 * re-parsed at run time and every hole can be reported at its exact line and column.
 *
 * `{{` and `}}` stand for literal braces. A single brace that does not open a valid hole is an
 * error rather than text: prompts often contain JSON, and silently rendering `{"a": 1}` as text
 * in one place but `{a}` as a hole in another would surprise an operator.
 */

export type TemplateRef = Extract<TemplatePart, { kind: 'ref' }>;

interface TemplateProblem {
  message: string;
  pos: Position;
}

export interface TemplateParse {
  template: Template;
  problems: TemplateProblem[];
}

/** Where the text came from: the lexer passes the opening quote and maps decoded characters back to columns (escapes make them differ). */
export interface TemplateOrigin {
  pos: Position;
  /** Source column of the decoded character at `index`; default: `pos.column + index`. */
  columnAt?: (index: number) => number;
}

/** First segment a name (`plan`, `max-delay`); later ones may also be indexes (`results.0`). */
const REF_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

export function parseTemplate(text: string, origin: TemplateOrigin = { pos: { line: 1, column: 1 } }): TemplateParse {
  const columnAt = origin.columnAt ?? ((index: number) => origin.pos.column + index);
  const at = (index: number): Position => ({ line: origin.pos.line, column: columnAt(index) });
  const parts: TemplatePart[] = [];
  const problems: TemplateProblem[] = [];
  let buffer = '';
  const flushText = (): void => {
    if (buffer !== '') parts.push({ kind: 'text', text: buffer });
    buffer = '';
  };

  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    if ((ch === '{' && next === '{') || (ch === '}' && next === '}')) {
      buffer += ch;
      i += 2;
      continue;
    }
    if (ch === '}') {
      problems.push({ message: 'unmatched } in string: write }} for a literal brace', pos: at(i) });
      buffer += ch;
      i += 1;
      continue;
    }
    if (ch !== '{') {
      buffer += ch;
      i += 1;
      continue;
    }
    const close = text.indexOf('}', i + 1);
    if (close === -1) {
      problems.push({ message: 'unclosed { in string: close the placeholder with } or write {{ for a literal brace', pos: at(i) });
      buffer += text.slice(i);
      break;
    }
    const inner = text.slice(i + 1, close).trim();
    if (!REF_PATH.test(inner)) {
      const shown = text.slice(i, close + 1);
      problems.push({
        message: `invalid placeholder ${shown}: expected a name such as {plan} or {err.message}, or write {{ for a literal brace`,
        pos: at(i),
      });
      buffer += shown;
    } else {
      flushText();
      parts.push({ kind: 'ref', path: inner.split('.'), pos: at(i) });
    }
    i = close + 1;
  }
  flushText();
  return { template: { pos: origin.pos, parts }, problems };
}

/** For code that builds templates from trusted text (presets, tests): throws on the first problem. */
export function templateFromString(text: string): Template {
  const { template, problems } = parseTemplate(text);
  const first = problems[0];
  if (first) throw new SyntaxError(`${first.message} (column ${first.pos.column})`);
  return template;
}

/**
 * Renders with values from `lookup`, which receives the whole path (`['err', 'message']`) so the
 * caller decides how fields resolve. Strings render as they are, null/undefined as nothing, and
 * anything structured (a parallel's `{successes, failures}`) as JSON so an agent can read it.
 */
export function renderTemplate(template: Template, lookup: (path: readonly string[]) => unknown): string {
  let out = '';
  for (const part of template.parts) {
    out += part.kind === 'text' ? part.text : formatValue(lookup(part.path));
  }
  return out;
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    // A cyclic value cannot be JSON; its string form is still better than failing the attempt.
    return String(value);
  }
}

/** A lookup over plain values: `{err.message}` reads `values.err.message`; a missing step gives undefined. */
export function lookupIn(values: Readonly<Record<string, unknown>>): (path: readonly string[]) => unknown {
  return (path) => {
    let current: unknown = values;
    for (const segment of path) {
      if (current === null || typeof current !== 'object') return undefined;
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
    return current;
  };
}

export function templateRefs(template: Template): TemplateRef[] {
  return template.parts.filter((part): part is TemplateRef => part.kind === 'ref');
}

/** The template as an operator wrote it, holes shown as `{name}`: labels, messages, literal property values. */
export function describeTemplate(template: Template): string {
  return template.parts.map((part) => (part.kind === 'text' ? part.text : `{${part.path.join('.')}}`)).join('');
}
