import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { Template } from '../flow/syntax/ast.js';
import { splitTemplateWords, TemplateSplitError } from '../flow/plan/shell-words.js';

/**
 * Turns an agent's `command:` template into what a process is started with, substituting the
 * few names a command may use (`{prompt}`, `{model}`).
 *
 * The order is what keeps a prompt from ever becoming code: the template's literal text is
 * split into words first (sh-like quoting: '...', "...", backslash; `core/flow/plan/shell-words.ts`,
 * the splitter `check` uses too), and a substituted value is then appended to the word it stands
 * in, verbatim. Whatever quotes, `;` or `$(...)` a prompt holds, it stays inside one argv
 * element. Which program may get that element at all is decided before anything runs
 * (`core/flow/plan/command-safety.ts`): only one known to take it as data. A `shell: true` script
 * never has a value put into its text.
 */

/** A command template that cannot become argv or a script; the runtime answers it as the agent's configuration error. */
export class CommandLineError extends HivewatchError {
  constructor(message: string) {
    super('USER_INVALID_CONFIG', { message });
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
 * For `shell: true` agents: the script for `/bin/sh -c`, exactly the template's text. A value is
 * never put into a script (the script reads "$HIVEWATCH_PROMPT"); `check` and the runtimes refuse
 * a placeholder there before this is reached, and this refuses it again rather than render one.
 */
export function shellScriptFromTemplate(template: Template): string {
  const ref = template.parts.find((part) => part.kind === 'ref');
  if (ref !== undefined)
    throw new CommandLineError(`{${ref.path.join('.')}} cannot be used in a shell: true command: read "$HIVEWATCH_PROMPT" / "$HIVEWATCH_MODEL" instead`);
  return template.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
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
