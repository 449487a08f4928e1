import type { Template } from '../flow/ast.js';
import { shellTemplateSafety } from '../flow/command-safety.js';
import { splitTemplateWords, TemplateSplitError } from '../flow/shell-words.js';

/**
 * Turns an agent's `command:` template into what a process is started with, substituting the
 * few names a command may use (`{prompt}`, `{model}`).
 *
 * The order is what keeps a prompt from ever becoming code: the template's literal text is
 * split into words first (sh-like quoting: '...', "...", backslash; `core/flow/shell-words.ts`,
 * the splitter `check` uses too), and a substituted value is then appended to the word it stands
 * in, verbatim. Whatever quotes, `;` or `$(...)` a prompt holds, it stays inside one argv
 * element. Where that element is code to the program that receives it (`sh -c '…'`), the
 * template is refused before anything runs (`core/flow/command-safety.ts`).
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

/** Splits a command template into argv. Throws CommandLineError for bad quoting or unknown names. */
export function splitCommandTemplate(template: Template, values: CommandValues): string[] {
  let words;
  try {
    words = splitTemplateWords(template);
  } catch (error) {
    if (error instanceof TemplateSplitError) throw new CommandLineError(error.message);
    throw error;
  }
  return words.map((word) => word.pieces.map((piece) => (typeof piece === 'string' ? piece : valueOf(piece.path, values))).join(''));
}

/** One shell word that means exactly `value`: '...' with each `'` written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * For `shell: true` agents: the template as one `/bin/sh -c` script. The author's text is
 * shell code and passes through unchanged; each substituted value is escaped for the quoting
 * context the scan of the script finds it in (bare → single-quoted; inside '...' → break out
 * and back in; inside "..." → backslash-escape `"`, `\`, `$`, backquote), so a value is always
 * data. A placeholder anywhere else (backticks, $(…), a here-document, eval, sh -c '…', …) is
 * refused, never "escaped well enough": `command-safety.ts` says where and why.
 */
export function shellScriptFromTemplate(template: Template, values: CommandValues): string {
  const safety = shellTemplateSafety(template);
  const problem = safety.problems[0];
  if (problem) throw new CommandLineError(problem.pos === template.pos ? problem.message : `${problem.pos.line}:${problem.pos.column}: ${problem.message}`);
  let script = '';
  for (const part of template.parts) {
    if (part.kind === 'text') {
      script += part.text;
      continue;
    }
    const value = valueOf(part.path, values);
    const place = safety.places.get(part);
    if (place === 'bare') script += shellQuote(value);
    else if (place === 'single') script += value.replace(/'/g, `'\\''`);
    else if (place === 'double') script += value.replace(/["\\$`]/g, '\\$&');
    else throw new CommandLineError(`{${part.path.join('.')}} has no quoting context in the command`);
  }
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
