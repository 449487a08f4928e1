import type { Position, Template } from '../syntax/ast.js';
import { splitTemplateWords, TemplateSplitError, type TemplateWord } from './shell-words.js';
import type { TemplateRef } from '../syntax/template.js';

/**
 * Where an agent's `command:` may put `{prompt}` and `{model}`: default deny. A value reaches a
 * process only where the process is known to take it as data, and nowhere else:
 *
 * - in the environment, always: every command child finds them as `$HIVEWATCH_PROMPT` and
 *   `$HIVEWATCH_MODEL` (a script pipes it to a tool's stdin, or passes "$HIVEWATCH_PROMPT" on);
 * - as the arguments of `printf '%s'` (or `'%s\n'`), which prints each exactly as given;
 * - through a preset (claude-code, codex-cli), whose `command:` names only the CLI's executable
 *   and which puts the prompt last, after `--`.
 *
 * Every other placement is refused at the placeholder's line:col, by `check` and again by the
 * runtime before anything starts: in a `shell: true` script (the shell would read the value as
 * script text), as an argument of any other program (it may run it, or read it as an option),
 * as the program itself. Whether some other program treats an argument as data is not judged at
 * all: docs/decisions/0029-prompts-are-data.md, "Prompts are data, never code".
 */

/** The values a command may use, and the environment variable every command child finds each in. */
const COMMAND_VALUES: Readonly<Record<string, string>> = { prompt: 'HIVEWATCH_PROMPT', model: 'HIVEWATCH_MODEL' };

/** printf formats that print their arguments exactly as given (written as in the template: `\n` is two characters). */
const DATA_FORMATS: readonly string[] = ['%s', '%s\\n'];

/** The file name a preset's `command:` executable must have. */
const PRESET_EXECUTABLES: Readonly<Record<string, string>> = { 'claude-code': 'claude', 'codex-cli': 'codex' };

/** Runtimes that run an agent's `command:`. */
const COMMAND_RUNTIMES: ReadonlySet<string> = new Set(['command', ...Object.keys(PRESET_EXECUTABLES)]);

export interface CommandProblem {
  message: string;
  pos: Position;
}

export interface CommandAgent {
  runtime: string;
  command: Template | null;
  shell: boolean;
}

const refsOf = (parts: Template['parts'] | TemplateWord['pieces']): TemplateRef[] =>
  parts.filter((p): p is TemplateRef => typeof p !== 'string' && p.kind === 'ref');

const nameOf = (ref: TemplateRef): string => ref.path.join('.');

/** The safe forms for a value, spelled out in the message: for the command runtime, or for a preset's executable. */
function safeForms(name: string, executable: string | undefined): string {
  const variable = COMMAND_VALUES[name] as string;
  if (executable !== undefined) {
    return `Name the executable alone (command: "${executable}") and the preset adds the prompt, or set shell: true and read it from the environment: ${executable} <flags> -- "$${variable}"`;
  }
  return (
    `Read it from the environment instead, with shell: true: "$${variable}" ` +
    `(printf '%s' "$${variable}" | tool gives it on stdin, tool -- "$${variable}" as one argument), ` +
    `or print it with printf '%s' {${name}}`
  );
}

function unknownName(ref: TemplateRef): CommandProblem | null {
  if (Object.hasOwn(COMMAND_VALUES, nameOf(ref))) return null;
  const known = Object.keys(COMMAND_VALUES)
    .map((k) => `{${k}}`)
    .join(' and ');
  return { message: `{${nameOf(ref)}} is not a value a command can use: only ${known}`, pos: ref.pos };
}

function refused(ref: TemplateRef, why: string, executable?: string): CommandProblem {
  return unknownName(ref) ?? { message: `{${nameOf(ref)}} cannot be used here: ${why}. ${safeForms(nameOf(ref), executable)}`, pos: ref.pos };
}

const literal = (word: TemplateWord): string | null => (word.pieces.every((p) => typeof p === 'string') ? word.pieces.join('') : null);

/** Why a value in word `index` of an argv template is refused, or null when it is data there. */
function argvRefusal(words: readonly TemplateWord[], index: number): string | null {
  const program = words[0] === undefined ? null : literal(words[0]);
  if (index === 0 || program === null) return 'it would choose the program to run';
  if (program !== 'printf') {
    return `it would be an argument of ${program}, and Hivewatch gives values only to programs known to take them as data (a program may run an argument as code, or read it as an option)`;
  }
  const format = words[1] === undefined ? null : literal(words[1]);
  if (index === 1 || format === null || !DATA_FORMATS.includes(format)) {
    return `printf prints a value as given only after the fixed format '%s' or '%s\\n' (printf '%s' {prompt}); as or after any other format, % directives and backslash escapes in it would be read`;
  }
  return null;
}

/** The words of an argv command, or why it does not split (bad quoting). */
function wordsOf(template: Template): TemplateWord[] | CommandProblem {
  try {
    return splitTemplateWords(template);
  } catch (error) {
    if (error instanceof TemplateSplitError) return { message: error.message, pos: template.pos };
    throw error;
  }
}

function argvProblems(template: Template): CommandProblem[] {
  const words = wordsOf(template);
  if (!Array.isArray(words)) return [words];
  const problems: CommandProblem[] = [];
  words.forEach((word, index) => {
    const refs = refsOf(word.pieces);
    const why = refs.length > 0 ? argvRefusal(words, index) : null;
    for (const ref of refs) {
      const problem = why === null ? unknownName(ref) : refused(ref, why);
      if (problem) problems.push(problem);
    }
  });
  return problems;
}

/** A preset's `command:`: the CLI's executable alone; the preset adds its arguments and the prompt after `--`. */
function presetProblems(template: Template, runtime: string, executable: string): CommandProblem[] {
  const refs = refsOf(template.parts);
  const why = `runtime ${runtime} adds the prompt (last, after --) and --model itself, so its command: names only the executable`;
  if (refs.length > 0) return refs.map((ref) => refused(ref, why, executable));
  const words = wordsOf(template);
  if (!Array.isArray(words)) return [words];
  const path = words.length === 1 ? (literal(words[0] as TemplateWord) ?? '') : '';
  if (words.length === 0 || path.slice(path.lastIndexOf('/') + 1) === executable) return [];
  const given = words.map((w) => literal(w) ?? '').join(' ');
  return [
    {
      message:
        `command: of runtime ${runtime} names the ${executable} executable alone (${executable}, or a path ending in /${executable}): ` +
        `the preset gives it the prompt, so "${given}" would be handed the prompt too. ` +
        `To run ${executable} with flags of your own, set shell: true and pass the prompt from the environment: ${executable} <flags> -- "$HIVEWATCH_PROMPT"`,
      pos: template.pos,
    },
  ];
}

/** Every problem of an agent's `command:`, for `check` and for the runtimes (none for runtimes that run no command). */
export function agentCommandProblems(agent: CommandAgent): CommandProblem[] {
  const { command, runtime } = agent;
  if (command === null || !COMMAND_RUNTIMES.has(runtime)) return [];
  if (agent.shell) {
    const why = 'in a shell: true command the shell reads the value as script text, where no quoting keeps every value data';
    return refsOf(command.parts).map((ref) => refused(ref, why, PRESET_EXECUTABLES[runtime]));
  }
  const executable = PRESET_EXECUTABLES[runtime];
  return executable === undefined ? argvProblems(command) : presetProblems(command, runtime, executable);
}
