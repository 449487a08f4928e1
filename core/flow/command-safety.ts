import type { Position, Template } from './ast.js';
import { judgeCommand, type CommandWord } from './command-words.js';
import { scanShellTemplate } from './shell-scan.js';
import { splitTemplateWords, TemplateSplitError, type RefPlace } from './shell-words.js';
import type { TemplateRef } from './template.js';

/**
 * No template runs a value as code (issue #25 part 3). An agent's `command:` may place
 * `{prompt}` (and `{model}`) only where quoting keeps the value one word of data for an ordinary
 * program; everywhere else — contexts the shell parses again, and programs that run their
 * arguments as code — `check` refuses it at the placeholder's line:col, and the runtime refuses
 * to start it (a flow that skipped `check`, an older journal resumed). Values are never passed
 * to the shell "escaped well enough" in those contexts: see docs/decisions.md.
 */

/** Where each value goes instead, by name: the runtimes put these in every child's environment. */
const VALUE_ENV: Readonly<Record<string, string>> = { prompt: 'HIVEWATCH_PROMPT', model: 'HIVEWATCH_MODEL' };

export interface CommandProblem {
  message: string;
  pos: Position;
}

export interface ShellTemplateSafety {
  /** How the renderer quotes each value (only refs that passed). */
  places: Map<TemplateRef, RefPlace>;
  problems: CommandProblem[];
}

const SCANNER_REASONS: Readonly<Record<string, string>> = {
  'right after a backslash': 'it stands right after a backslash, which would escape the quote that keeps the value data',
  'right after $': 'it stands right after $, which would turn the quoted value into $\'…\' or a $(…) command',
  'a # comment': 'it is in a # comment, and a newline in the value would end the comment so that the rest runs as commands',
  'a here-document (<<)':
    'it is in a here-document (<<), whose body the shell expands ($(…) runs) and which a line of the value equal to the delimiter would end early, so that the rest runs as commands',
  'a here-document delimiter': 'it is in a here-document delimiter',
};

function scannerReason(construct: string): string {
  return SCANNER_REASONS[construct] ?? `it is inside ${construct}, which the shell parses again as code, so a quote in the value can end the quoting meant to keep it data`;
}

/** The safe alternative, for the message. */
function safeAlternative(ref: TemplateRef): string {
  const name = ref.path.join('.');
  const variable = VALUE_ENV[name];
  if (variable === undefined) return 'Pass the value in an environment variable or on stdin instead';
  return `Pass it in the environment instead, where every attempt's process finds it as $${variable} (quote it: "$${variable}"), or on stdin: printf '%s' "$${variable}" | tool`;
}

function problemOf(ref: TemplateRef, reason: string): CommandProblem {
  return { message: `{${ref.path.join('.')}} is not safe here: ${reason}. ${safeAlternative(ref)}`, pos: ref.pos };
}

/** Collects the first reason per ref, in template order. */
class Refusals {
  private readonly reasons = new Map<TemplateRef, string>();

  readonly refuse = (ref: TemplateRef, why: string): void => {
    if (!this.reasons.has(ref)) this.reasons.set(ref, why);
  };

  has(ref: TemplateRef): boolean {
    return this.reasons.has(ref);
  }

  problems(template: Template): CommandProblem[] {
    const refs = template.parts.filter((p): p is TemplateRef => p.kind === 'ref');
    return refs.filter((ref) => this.reasons.has(ref)).map((ref) => problemOf(ref, this.reasons.get(ref) as string));
  }
}

/** A `shell: true` template: each value's quoting context, and the placeholders refused. */
export function shellTemplateSafety(template: Template): ShellTemplateSafety {
  const scan = scanShellTemplate(template);
  if (scan.broken !== null) return { places: new Map(), problems: [{ message: scan.broken, pos: template.pos }] };
  const refusals = new Refusals();
  for (const [ref, construct] of scan.refused) refusals.refuse(ref, scannerReason(construct));
  for (const command of scan.commands) judgeCommand(command, true, refusals.refuse);
  const places = new Map([...scan.places].filter(([ref]) => !refusals.has(ref)));
  return { places, problems: refusals.problems(template) };
}

/**
 * An argv template (no shell). `appended`: a preset's `command:` without placeholders is a
 * prefix, and the preset appends the prompt after it as one more argument.
 */
export function argvTemplateProblems(template: Template, appended: TemplateRef | null = null): CommandProblem[] {
  let words: CommandWord[];
  try {
    words = splitTemplateWords(template);
  } catch (error) {
    if (error instanceof TemplateSplitError) return [{ message: error.message, pos: template.pos }];
    throw error;
  }
  if (appended !== null) words.push({ pieces: [appended] });
  const refusals = new Refusals();
  judgeCommand(words, false, refusals.refuse);
  const withAppended: Template = appended === null ? template : { ...template, parts: [...template.parts, appended] };
  return refusals.problems(withAppended);
}

/** Every problem of an agent's `command:` for `check` and for the runtimes. */
export function commandTemplateProblems(template: Template, options: { shell: boolean; presetPrefix: boolean }): CommandProblem[] {
  const hasRefs = template.parts.some((p) => p.kind === 'ref');
  if (options.presetPrefix && !hasRefs) {
    // The preset puts the prompt after the prefix: judge it there, reported at the command.
    return argvTemplateProblems(template, { kind: 'ref', path: ['prompt'], pos: template.pos });
  }
  if (!hasRefs) return [];
  return options.shell ? shellTemplateSafety(template).problems : argvTemplateProblems(template);
}

/** The runtimes that run an agent's `command:`; the presets treat one without placeholders as a prefix. */
const COMMAND_RUNTIMES: Readonly<Record<string, { presetPrefix: boolean }>> = {
  command: { presetPrefix: false },
  'claude-code': { presetPrefix: true },
  'codex-cli': { presetPrefix: true },
};

/** The problems of an agent's `command:` as its runtime would run it (none for runtimes that run no command). */
export function agentCommandProblems(agent: { runtime: string; command: Template | null; shell: boolean }): CommandProblem[] {
  const how = Object.hasOwn(COMMAND_RUNTIMES, agent.runtime) ? COMMAND_RUNTIMES[agent.runtime] : undefined;
  if (agent.command === null || how === undefined) return [];
  return commandTemplateProblems(agent.command, { shell: agent.shell, presetPrefix: how.presetPrefix });
}
