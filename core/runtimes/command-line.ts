import type { Template } from '../flow/ast.js';

/**
 * Turns an agent's `command:` template into what a process is started with, substituting the
 * few names a command may use (`{prompt}`, `{model}`).
 *
 * The order is what keeps a prompt from ever becoming code: the template's literal text is
 * split into words first (sh-like quoting: '...', "...", backslash), and a substituted value is
 * then appended to the word it stands in, verbatim. Whatever quotes, `;` or `$(...)` a prompt
 * holds, it stays inside one argv element. (The flow's template parser is not used here: this
 * works on the already parsed parts, so nothing is re-parsed at run time.)
 */

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** name → value; a null value is a name that exists but is unset (an agent without `model:`). */
export type CommandValues = Readonly<Record<string, string | null>>;

export function commandValues(prompt: string, model: string | null): CommandValues {
  return { prompt, model };
}

function valueOf(path: readonly string[], values: CommandValues): string {
  const name = path.join('.');
  if (!Object.prototype.hasOwnProperty.call(values, name)) {
    const known = Object.keys(values)
      .map((k) => `{${k}}`)
      .join(' and ');
    throw new CommandLineError(`unknown name {${name}} in command: only ${known} can be used`);
  }
  const value = values[name];
  if (value === null || value === undefined) throw new CommandLineError(`command uses {${name}} but the agent sets no ${name}`);
  return value;
}

const WHITESPACE = /\s/;
/** Inside double quotes a backslash only escapes these (as in sh). */
const DOUBLE_QUOTE_ESCAPABLE = new Set(['"', '\\', '$', '`']);

/** Splits a command template into argv. Throws CommandLineError for bad quoting or unknown names. */
export function splitCommandTemplate(template: Template, values: CommandValues): string[] {
  const words: string[] = [];
  let word = '';
  // A word can be started yet empty: `''` or a `{prompt}` that is the empty string.
  let inWord = false;
  let quote: "'" | '"' | null = null;

  for (const part of template.parts) {
    if (part.kind === 'ref') {
      word += valueOf(part.path, values);
      inWord = true;
      continue;
    }
    const text = part.text;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (quote === "'") {
        if (ch === "'") quote = null;
        else word += ch;
        continue;
      }
      if (quote === '"') {
        if (ch === '"') {
          quote = null;
        } else if (ch === '\\' && i + 1 < text.length && DOUBLE_QUOTE_ESCAPABLE.has(text[i + 1] as string)) {
          word += text[++i];
        } else if (ch === '\\' && text[i + 1] === '\n') {
          i++; // line continuation
        } else {
          word += ch;
        }
        continue;
      }
      if (WHITESPACE.test(ch)) {
        if (inWord) words.push(word);
        word = '';
        inWord = false;
      } else if (ch === "'" || ch === '"') {
        quote = ch;
        inWord = true;
      } else if (ch === '\\') {
        const next = text[i + 1];
        if (next === undefined) throw new CommandLineError('a backslash at the end of a command escapes nothing');
        i++;
        if (next !== '\n') {
          word += next;
          inWord = true;
        }
      } else {
        word += ch;
        inWord = true;
      }
    }
  }
  if (quote !== null) throw new CommandLineError(`unterminated ${quote === "'" ? 'single' : 'double'} quote in command`);
  if (inWord) words.push(word);
  return words;
}

/** One shell word that means exactly `value`: '...' with each `'` written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * For `shell: true` agents: the template as one `/bin/sh -c` script. The author's text is
 * shell code and passes through unchanged; each substituted value is escaped for the quoting
 * context it lands in (bare → single-quoted; inside '...' → break out and back in; inside
 * "..." → backslash-escape `"`, `\`, `$`, backquote), so a value is always data, never code.
 * Limitation: quoting nested inside `$(...)` within double quotes is not tracked.
 */
export function shellScriptFromTemplate(template: Template, values: CommandValues): string {
  let script = '';
  let quote: "'" | '"' | null = null;
  for (const part of template.parts) {
    if (part.kind === 'ref') {
      const value = valueOf(part.path, values);
      if (quote === null) script += shellQuote(value);
      else if (quote === "'") script += value.replace(/'/g, `'\\''`);
      else script += value.replace(/["\\$`]/g, '\\$&');
      continue;
    }
    const text = part.text;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      script += ch;
      if (quote === "'") {
        if (ch === "'") quote = null;
      } else if (ch === '\\') {
        // Outside single quotes a backslash takes the next character with it.
        if (i + 1 < text.length) script += text[++i];
      } else if (quote === '"') {
        if (ch === '"') quote = null;
      } else if (ch === "'" || ch === '"') {
        quote = ch;
      }
    }
  }
  if (quote !== null) throw new CommandLineError(`unterminated ${quote === "'" ? 'single' : 'double'} quote in command`);
  return script;
}

/**
 * A Template from text where `{name}` is a reference, for built-in command lines and tests.
 * Deliberately minimal (no escapes, no positions): flows get their templates from the flow
 * parser, not from here.
 */
export function templateFromText(text: string): Template {
  const pos = { line: 1, column: 1 };
  const parts: Template['parts'][number][] = [];
  const pattern = /\{([A-Za-z_][A-Za-z0-9_.]*)\}/g;
  let last = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match.index > last) parts.push({ kind: 'text', text: text.slice(last, match.index) });
    parts.push({ kind: 'ref', path: (match[1] as string).split('.'), pos });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return { pos, parts };
}

/** Whether a template references any name (a command given in full) or is plain text (an executable). */
export function templateHasRefs(template: Template): boolean {
  return template.parts.some((p) => p.kind === 'ref');
}
