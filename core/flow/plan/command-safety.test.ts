import { describe, expect, it } from 'vitest';
import { checkFlow } from '../check/check.js';
import { agentCommandProblems } from './command-safety.js';
import { parseTemplate } from '../syntax/template.js';

const problems = (text: string, shell = false, runtime = 'command'): string[] =>
  agentCommandProblems({ runtime, command: parseTemplate(text).template, shell }).map((p) => p.message);

/** What `hivewatch check` says about one agent, as `line:col: message`. */
function checked(agentLines: string[]): string[] {
  const source = ['agent a:', ...agentLines, 'session: a', '  prompt: "x"', ''].join('\n');
  return checkFlow(source, 'f.prose').diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`);
}

const ENV_FORMS = (name: string, variable: string): string =>
  `Read it from the environment instead, with shell: true: "$${variable}" (printf '%s' "$${variable}" | tool gives it on stdin, tool -- "$${variable}" as one argument), or print it with printf '%s' {${name}}`;

describe('what check accepts: the allow-list', () => {
  it.each([
    "printf '%s' {prompt}",
    'printf %s {prompt}',
    "printf '%s\\n' {prompt} {model}",
    'printf "%s\\n" {prompt}',
    "printf '%s' x{prompt}y",
    '/bin/sh script.sh', // no value in the command line: the script reads $HIVEWATCH_PROMPT
    'node tool.js --verbose',
  ])('argv %s', (text) => expect(problems(text)).toEqual([]));

  it.each([`printf '%s' "$HIVEWATCH_PROMPT" | tool`, 'tool --model "$HIVEWATCH_MODEL" -- "$HIVEWATCH_PROMPT"', 'cat <<EOF\n$HIVEWATCH_PROMPT\nEOF'])(
    'shell: true %s (no placeholder: the value comes from the environment)',
    (text) => expect(problems(text, true)).toEqual([]),
  );

  it.each([
    ['claude-code', 'claude'],
    ['claude-code', '/opt/claude/bin/claude'],
    ['claude-code', '"/home/o p/.local/bin/claude"'],
    ['codex-cli', 'codex'],
    ['codex-cli', '/usr/local/bin/codex'],
    ['codex-cli', ''],
  ])('%s with command: %s (the preset appends the prompt after --)', (runtime, text) => expect(problems(text, false, runtime)).toEqual([]));

  it('a preset with shell: true runs the script as written (it reads the prompt from the environment)', () => {
    expect(problems('claude -p --output-format json --permission-mode acceptEdits -- "$HIVEWATCH_PROMPT"', true, 'claude-code')).toEqual([]);
  });

  it('leaves agents of runtimes that run no command alone', () => {
    expect(problems('eval {prompt}', true, 'fake')).toEqual([]);
    expect(problems('perl -e {prompt}', false, 'noop')).toEqual([]);
  });
});

describe('what check refuses, at file:line:col, with the safe form', () => {
  it('any placeholder in a shell: true script', () => {
    expect(checked(['  command: "printf \'%s\' {prompt} | tool --model {model}"', '  shell: true'])).toEqual([
      `2:25: {prompt} cannot be used here: in a shell: true command the shell reads the value as script text, where no quoting keeps every value data. ${ENV_FORMS('prompt', 'HIVEWATCH_PROMPT')}`,
      `2:49: {model} cannot be used here: in a shell: true command the shell reads the value as script text, where no quoting keeps every value data. ${ENV_FORMS('model', 'HIVEWATCH_MODEL')}`,
    ]);
  });

  it('an argument of any program but printf', () => {
    expect(checked(['  command: "perl -ne print {prompt}"'])).toEqual([
      `2:28: {prompt} cannot be used here: it would be an argument of perl, and Hivewatch gives values only to programs known to take them as data (a program may run an argument as code, or read it as an option). ${ENV_FORMS('prompt', 'HIVEWATCH_PROMPT')}`,
    ]);
    expect(checked(['  command: "echo {prompt}"'])[0]).toMatch(/^2:18: \{prompt\} cannot be used here: it would be an argument of echo, /);
    expect(checked(['  command: "cat {prompt}"'])[0]).toMatch(/^2:17: \{prompt\} cannot be used here: it would be an argument of cat, /);
    expect(checked(['  command: "/usr/bin/printf \'%s\' {prompt}"'])[0]).toMatch(
      /^2:34: \{prompt\} cannot be used here: it would be an argument of \/usr\/bin\/printf, /,
    );
  });

  it('printf with any format but %s, or the value as the format', () => {
    const printfReason =
      "printf prints a value as given only after the fixed format '%s' or '%s\\n' (printf '%s' {prompt}); as or after any other format, % directives and backslash escapes in it would be read";
    expect(checked(['  command: "printf {prompt}"'])).toEqual([
      `2:20: {prompt} cannot be used here: ${printfReason}. ${ENV_FORMS('prompt', 'HIVEWATCH_PROMPT')}`,
    ]);
    expect(checked(['  command: "printf %b {prompt}"'])).toEqual([
      `2:23: {prompt} cannot be used here: ${printfReason}. ${ENV_FORMS('prompt', 'HIVEWATCH_PROMPT')}`,
    ]);
    expect(problems("printf '%s%s' {prompt}")).toHaveLength(1);
  });

  it('the program itself', () => {
    expect(checked(['  command: "{prompt} --help"'])).toEqual([
      `2:13: {prompt} cannot be used here: it would choose the program to run. ${ENV_FORMS('prompt', 'HIVEWATCH_PROMPT')}`,
    ]);
    expect(problems('./bin/{prompt}.sh')).toEqual([expect.stringContaining('it would choose the program to run')]);
  });

  it("a preset's command: that is not the CLI's executable alone", () => {
    expect(checked(['  runtime: "claude-code"', '  command: "bash -c"'])).toEqual([
      '3:12: command: of runtime claude-code names the claude executable alone (claude, or a path ending in /claude): the preset gives it the prompt, so "bash -c" would be handed the prompt too. To run claude with flags of your own, set shell: true and pass the prompt from the environment: claude <flags> -- "$HIVEWATCH_PROMPT"',
    ]);
    expect(problems('node stand-in.js', false, 'codex-cli')).toEqual([
      expect.stringMatching(/^command: of runtime codex-cli names the codex executable alone .* "node stand-in.js" would be handed the prompt too/),
    ]);
    expect(problems('claude --verbose', false, 'claude-code')).toHaveLength(1);
    expect(problems('/opt/claude-wrapper', false, 'claude-code')).toHaveLength(1);
  });

  it('a placeholder in a preset command:', () => {
    expect(checked(['  runtime: "codex-cli"', '  command: "codex exec {prompt}"'])).toEqual([
      '3:24: {prompt} cannot be used here: runtime codex-cli adds the prompt (last, after --) and --model itself, so its command: names only the executable. Name the executable alone (command: "codex") and the preset adds the prompt, or set shell: true and read it from the environment: codex <flags> -- "$HIVEWATCH_PROMPT"',
    ]);
  });

  it('a name a command cannot use, and a command that does not split', () => {
    expect(checked(['  command: "printf \'%s\' {feedback}"'])).toEqual(['2:25: {feedback} is not a value a command can use: only {prompt} and {model}']);
    expect(problems('tool {run}', true)).toEqual(['{run} is not a value a command can use: only {prompt} and {model}']);
    expect(problems("printf '%s {prompt}")).toEqual(['unterminated single quote in command']);
  });

  it('reports every refused placeholder, each at its own column', () => {
    expect(checked(['  command: "sh -c {prompt} {model}"']).map((line) => line.slice(0, line.indexOf(' cannot')))).toEqual(['2:19: {prompt}', '2:28: {model}']);
  });
});
