import { describe, expect, it } from 'vitest';
import { checkFlow } from './check.js';
import { argvTemplateProblems, commandTemplateProblems, shellTemplateSafety } from './command-safety.js';
import { parseTemplate, type TemplateRef } from './template.js';

const template = (text: string) => parseTemplate(text).template;
const shellProblems = (text: string): string[] => shellTemplateSafety(template(text)).problems.map((p) => p.message);
const argvProblems = (text: string): string[] => argvTemplateProblems(template(text)).map((p) => p.message);
const presetProblems = (text: string): string[] => commandTemplateProblems(template(text), { shell: false, presetPrefix: true }).map((p) => p.message);

describe('shell: true templates: where a placeholder may stand', () => {
  it.each([
    ['echo {prompt}', 'bare'],
    ['echo "{prompt}"', 'double'],
    ["echo '{prompt}'", 'single'],
    ['tool --x={prompt} --model={model}', 'bare'],
    ["printf '%s' \"pre {prompt} post\" | tool", 'double'],
    ['cd /tmp && tool {prompt} | tee "out file"', 'bare'],
    ['X={prompt} tool', 'bare'],
    ['X="{prompt}" tool', 'double'],
    ["sh -c 'tool \"$1\"' sh {prompt}", 'bare'],
    ["python3 -c 'import sys; print(sys.argv[1])' {prompt}", 'bare'],
    ['case {prompt} in a) echo a;; esac', 'bare'],
    ['for x in {prompt}; do echo "$x"; done', 'bare'],
    ['tool <<< {prompt}', 'bare'],
    ['echo "$(date)" {prompt}', 'bare'],
    ['echo "$(printf \'"\')" \'{prompt}\'', 'single'],
    ["awk -v p={prompt} 'BEGIN {{ print p }}'", 'bare'],
    ['echo "$HOME" {prompt} 2>/dev/null', 'bare'],
    ['sudo -u ops tool {prompt}', 'bare'],
    ['env X={prompt} tool', 'bare'],
    ["sed -e 's/a/b/' {prompt}", 'bare'],
    ['echo $(echo ")") {prompt}', 'bare'],
  ])('accepts %s (the value is quoted as %s)', (text, place) => {
    const safety = shellTemplateSafety(template(text));
    expect(safety.problems).toEqual([]);
    const first = template(text).parts.find((p): p is TemplateRef => p.kind === 'ref');
    const ref = [...safety.places.keys()].find((r) => r.pos.column === first?.pos.column);
    expect(ref && safety.places.get(ref)).toBe(place);
  });

  it.each([
    ['echo "`echo {prompt}`"', 'backticks'],
    ['echo "$(echo {prompt})"', '$(…)'],
    ['echo $(echo "{prompt}")', '$(…)'],
    ['cat <<EOF\n{prompt}\nEOF', 'here-document'],
    ["cat <<'EOF'\n{prompt}\nEOF", 'here-document'],
    ['cat <<-EOF\n\t{prompt}\n\tEOF\necho done', 'here-document'],
    ['cat <<{prompt}\nx\n', 'here-document delimiter'],
    ['eval echo {prompt}', 'eval runs its arguments as shell code'],
    ["sh -c 'echo {prompt}'", 'sh -c parses this string as shell code'],
    ['bash -c "echo {prompt}"', 'bash -c parses this string'],
    ["bash -lc 'tool {prompt}'", 'bash -c parses this string'],
    ['/bin/sh -e -c "tool {prompt}"', 'sh -c parses this string'],
    ['echo $(( {prompt} + 1 ))', '$((…)) arithmetic'],
    ['(( x = {prompt} ))', '((…)) arithmetic'],
    ['echo "${{X:-{prompt}}}"', '${…}'],
    ['diff <(echo {prompt}) x', '<(…) process substitution'],
    ["echo $'{prompt}'", "$'…'"],
    ['{prompt} --help', 'command name'],
    ['./bin/{prompt}.sh', 'command name'],
    ['tool # {prompt}', '# comment'],
    ['[[ {prompt} -eq 1 ]] && tool', '[[ … ]]'],
    ['export X={prompt}', 'export evaluates'],
    ['a[{prompt}]=1 tool', 'array subscript'],
    ['ssh build-host tool {prompt}', 'ssh joins its arguments'],
    ["xargs sh -c 'echo {prompt}'", 'sh -c parses'],
    ["find . -exec sh -c 'echo {prompt}' \\;", 'sh -c parses'],
    ['python3 -c {prompt}', 'python3 -c runs this value as code'],
    ['node -e "{prompt}"', 'node -e runs this value as code'],
    ['perl -e {prompt}', 'perl -e runs this value as code'],
    ['sed "s/a/{prompt}/"', 'sed runs its program text as code'],
    ['$SHELL -c "echo {prompt}"', 'chosen when the command runs'],
    ['tool > {prompt}', 'redirection'],
    ['echo \\{prompt}', 'backslash'],
    ['echo ${prompt}', 'right after $'],
    ['echo "${prompt}"', 'right after $'],
    ['echo "a\\{prompt}"', 'backslash'],
    ['trap {prompt} EXIT', 'trap runs'],
    ['sudo -s {prompt}', 'sudo -s runs a shell command line'],
    ['env -S {prompt}', 'env -S runs a shell command line'],
    ['timeout {prompt} tool', 'operand of timeout'],
    ['watch tool {prompt}', 'watch joins'],
    ['echo "$(case x in a) echo;; esac; echo {prompt})"', '$(…)'],
    ['echo "$(echo \')\' {prompt})"', '$(…)'],
    ['sh script.sh && bash {prompt}', 'script that bash runs'],
  ])('refuses %s (%s)', (text, fragment) => {
    const problems = shellProblems(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(fragment);
    expect(problems[0]).toContain('$HIVEWATCH_PROMPT');
  });

  it('reports a script that does not parse, without judging its placeholders', () => {
    expect(shellProblems('echo "{prompt}')).toEqual(['unterminated double quote in command']);
    expect(shellProblems('echo $(tool {prompt}')).toEqual(['unterminated $(…) in command']);
  });

  it('judges every placeholder on its own: a safe one stays, an unsafe one is named', () => {
    const safety = shellTemplateSafety(template('tool {prompt} && eval {model}'));
    expect(safety.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^\{model\} is not safe here: eval runs .*\$HIVEWATCH_MODEL/)]);
    expect([...safety.places.values()]).toEqual(['bare']);
  });
});

describe('argv templates (no shell)', () => {
  it.each(['tool {prompt}', "sh -c 'tool \"$1\"' sh {prompt}", 'sh script.sh {prompt}', 'env X={prompt} tool', 'claude -p {prompt} --model {model}', 'python3 tool.py {prompt}'])(
    'accepts %s',
    (text) => expect(argvProblems(text)).toEqual([]),
  );

  it.each([
    ["sh -c 'echo {prompt}'", 'sh -c parses this string as shell code'],
    ['bash -c "echo {prompt}"', 'bash -c parses'],
    ['/bin/bash -ec {prompt}', 'bash -c parses'],
    ['env FOO=1 bash -c {prompt}', 'bash -c parses'],
    ['sudo -u ops sh -c {prompt}', 'sh -c parses'],
    ['{prompt}', 'command name'],
    ['python3 -c {prompt}', 'python3 -c runs'],
    ['nice -n 5 {prompt}', 'command name'],
  ])('refuses %s (%s)', (text, fragment) => {
    const problems = argvProblems(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(fragment);
  });
});

describe('a preset whose command: is a prefix (the preset appends the prompt)', () => {
  it.each(['/opt/bin/claude', 'npx @openai/codex', "sh -c 'claude \"$@\"' sh"])('accepts %s', (text) => expect(presetProblems(text)).toEqual([]));
  it.each(['bash -c', 'python3 -c', 'env sh -c'])('refuses %s: the prompt would land in code', (text) => {
    expect(presetProblems(text)).toEqual([expect.stringContaining('{prompt} is not safe here')]);
  });
});

describe('hivewatch check', () => {
  it('reports an unsafe placeholder at file:line:col with the safe alternative', () => {
    const source = [
      'agent sh1:',
      '  command: "echo \\"`echo {prompt}`\\""',
      '  shell: true',
      'agent wrap:',
      '  command: "sh -c \'tool {prompt}\'"',
      'agent coder:',
      '  runtime: "claude-code"',
      '  command: "bash -c"',
      'agent fine:',
      '  command: "tool {prompt}"',
      '  shell: true',
      'session: sh1',
      '  prompt: "x"',
    ].join('\n');
    const result = checkFlow(source, 'f.prose');
    expect(result.ok).toBe(false);
    const shown = result.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`);
    expect(shown).toEqual([
      expect.stringMatching(/^2:26: \{prompt\} is not safe here: it is inside backticks .* Pass it in the environment instead, .* \$HIVEWATCH_PROMPT/),
      expect.stringMatching(/^5:25: \{prompt\} is not safe here: sh -c parses this string as shell code/),
      expect.stringMatching(/^8:12: \{prompt\} is not safe here: bash -c parses/),
    ]);
  });

  it('leaves agents of runtimes that run no command alone', () => {
    expect(checkFlow('agent f:\n  runtime: "fake"\n  command: "eval {prompt}"\n  shell: true\n', 'f.prose').ok).toBe(true);
  });
});
