/**
 * Command templates and prompts that try to run as code: the table `core/runtimes/prompt-as-data.test.ts`
 * runs. A payload is a function of the marker file it tries to create; a shape is an agent's
 * `command:` as its template means it (`{prompt}` the placeholder, every other brace literal).
 *
 * `exploit` is the payload that makes a refused shape run code when its value is put in without
 * the check (the control that shows the shape is a real attack and the marker a real witness);
 * `needs` are the programs that control runs.
 */

/** A flow string literal for a template: quotes, backslashes and newlines escaped, literal braces doubled. */
export function flowString(text: string): string {
  const braces = text.replace(/\{(?!(?:prompt|model)\})/g, '{{').replace(/(?<!\{(?:prompt|model))\}/g, '}}');
  return `"${braces.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

export type Payload = readonly [name: string, of: (marker: string) => string];

export const PAYLOADS: readonly Payload[] = [
  ['a bare command', (m) => `touch ${m}`],
  ['a semicolon', (m) => `; touch ${m}`],
  ['command substitution', (m) => `$(touch ${m})`],
  ['backticks', (m) => `\`touch ${m}\``],
  ['a single quote', (m) => `'; touch ${m}; '`],
  ['a double quote', (m) => `"; touch ${m}; "`],
  ['newlines', (m) => `x\ntouch ${m}\n`],
  ['a NUL', (m) => `a\0; touch ${m}`],
  ['a here-document end', (m) => `EOF\ntouch ${m}\nEOF`],
  ['an arithmetic subscript', (m) => `a[$(touch ${m})]`],
  ["Perl's two-argument open", (m) => `touch ${m}|`],
  ['Perl code', (m) => `system("touch ${m}")`],
  ['Python code', (m) => `__import__("os").system("touch ${m}")`],
  ['an option giving Node code', (m) => `--eval=require("child_process").execSync("touch ${m}")`],
  ['awk code', (m) => `BEGIN { system("touch ${m}") }`],
  ["sed's e command", (m) => `1e touch ${m}`],
  ['a sed option giving a script', (m) => `--expression=1e touch ${m}`],
  ['a gdb command', (m) => `shell touch ${m}`],
  ['a vim command', (m) => `!touch ${m}`],
  ['a sqlite3 dot-command', (m) => `.shell touch ${m}`],
  ['a make option', (m) => `--eval=$(shell touch ${m})`],
  ['a tar option', (m) => `--to-command=touch ${m}`],
  ['a git alias', (m) => `alias.hw=!touch ${m}`],
  ['an ssh option', (m) => `-oProxyCommand=touch ${m}`],
  ['an env option', (m) => `-Stouch ${m}`],
  ['a zip option', (m) => `--unzip-command=touch ${m}`],
  ['a curl option', (m) => `-o${m}`],
  ['an option that looks like help', () => '--help'],
  ['an option of echo', () => '-n'],
];

export interface Shape {
  /** What is tried, for the test's name. */
  name: string;
  command: string;
  shell?: boolean;
  runtime?: 'command' | 'claude-code' | 'codex-cli';
  exploit?: (marker: string) => string;
  needs?: readonly string[];
  /** su / sg run without a password only for root. */
  root?: boolean;
}

const payload = (name: string): ((marker: string) => string) => {
  const found = PAYLOADS.find(([n]) => n === name);
  if (found === undefined) throw new Error(`no payload ${name}`);
  return found[1];
};

/** Refused by default deny: an argument of a program that is not on the allow-list, or a placeholder in a script. */
export const REFUSED_SHAPES: readonly Shape[] = [
  { name: 'perl reading the value as a file name', command: 'perl -ne print {prompt}', exploit: payload("Perl's two-argument open"), needs: ['perl'] },
  { name: 'perl -e', command: 'perl -e {prompt}', exploit: payload('Perl code'), needs: ['perl'] },
  { name: 'awk program text after an assignment', command: 'awk -v x=1 {prompt}', exploit: payload('awk code'), needs: ['awk'] },
  { name: 'python -c', command: 'python3 -c {prompt}', exploit: payload('Python code'), needs: ['python3'] },
  { name: 'python -c with the value after the script (data, but not on the list)', command: 'python3 -c "import sys; print(sys.argv[1])" {prompt}' },
  {
    name: 'node -e with the value after the script',
    command: 'node -e "console.log(process.argv[1])" {prompt}',
    exploit: payload('an option giving Node code'),
    needs: ['node'],
  },
  { name: 'ruby -e', command: 'ruby -e {prompt}', exploit: payload('Perl code'), needs: ['ruby'] },
  { name: 'sg -c', command: 'sg root -c {prompt}', exploit: payload('a bare command'), needs: ['sg'], root: true },
  { name: 'su -c', command: 'su -c {prompt}', exploit: payload('a bare command'), needs: ['su'], root: true },
  { name: 'env', command: 'env {prompt}', exploit: payload('an env option'), needs: ['env'] },
  { name: 'xargs sh -c', command: 'xargs sh -c {prompt}', exploit: payload('a bare command'), needs: ['xargs'] },
  { name: 'find -exec sh -c', command: 'find . -maxdepth 0 -exec sh -c {prompt} ;', exploit: payload('a bare command'), needs: ['find'] },
  { name: 'git -c', command: 'git -c {prompt} hw', exploit: payload('a git alias'), needs: ['git'] },
  { name: 'git commit -m (data, but not on the list)', command: 'git commit -m {prompt}' },
  { name: 'ssh option injection', command: 'ssh {prompt} true', exploit: payload('an ssh option'), needs: ['ssh'] },
  { name: 'tar --to-command', command: 'tar -xf bundle.tar {prompt}', exploit: payload('a tar option'), needs: ['tar'] },
  { name: "sed's e command", command: 'sed {prompt} bundle.txt', exploit: payload("sed's e command"), needs: ['sed'] },
  {
    name: 'sed with a script file and an injected -e',
    command: 'sed -n -f /dev/null {prompt} bundle.txt',
    exploit: payload('a sed option giving a script'),
    needs: ['sed'],
  },
  { name: 'sh -c "$0" (the value unquoted in the inner script)', command: 'sh -c "$0" {prompt}', exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'sh -c with the script from an argument', command: 'sh -c \'eval "$1"\' sh {prompt}', exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'bash -c', command: 'bash -c {prompt}', exploit: payload('a bare command'), needs: ['bash'] },
  { name: 'sqlite3 dot-commands', command: 'sqlite3 :memory: {prompt}', exploit: payload('a sqlite3 dot-command'), needs: ['sqlite3'] },
  { name: 'gdb -ex', command: 'gdb -nx -batch -ex {prompt}', exploit: payload('a gdb command'), needs: ['gdb'] },
  { name: 'vim -c', command: 'vim -N -u NONE -i NONE -es -c {prompt} -c qa!', exploit: payload('a vim command'), needs: ['vim'] },
  { name: 'make option injection', command: 'make -f /dev/null {prompt}', exploit: payload('a make option'), needs: ['make'] },
  { name: 'zip option injection', command: 'zip -q out.zip bundle.txt -T {prompt}', exploit: payload('a zip option'), needs: ['zip'] },
  { name: 'curl option injection (writes a file)', command: 'curl -s {prompt} file:///dev/null', exploit: payload('a curl option'), needs: ['curl'] },
  { name: 'script -c', command: 'script -qc {prompt} /dev/null', exploit: payload('a bare command'), needs: ['script'] },
  { name: 'flock -c', command: 'flock lock -c {prompt}', exploit: payload('a bare command'), needs: ['flock'] },
  { name: 'timeout running the value', command: 'timeout 5 sh -c {prompt}', exploit: payload('a bare command'), needs: ['timeout'] },
  { name: 'the value as the program', command: '{prompt}' },
  { name: 'echo (a value such as -n is its option)', command: 'echo {prompt}' },
  { name: 'cat (the value is a file name)', command: 'cat {prompt}' },
  { name: 'printf with the value as the format', command: 'printf {prompt}' },
  { name: 'printf %b (escapes in the value are read)', command: 'printf %b {prompt}' },
  { name: 'a shell: echo', command: 'echo {prompt}', shell: true },
  { name: "a shell: printf '%s' quoted", command: 'printf \'%s\' "{prompt}"', shell: true },
  { name: 'a shell: a pipe to sh', command: "printf '%s\\n' {prompt} | sh", shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: xargs sh -c', command: "printf '%s' {prompt} | xargs -0 sh -c", shell: true, exploit: payload('a bare command'), needs: ['xargs'] },
  { name: 'a shell: a variable, then eval', command: 'x={prompt}; eval "$x"', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: eval', command: 'eval {prompt}', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: a file, then sh', command: "printf '%s' {prompt} > cmd.sh; sh cmd.sh", shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: a function', command: 'run() { sh -c "$1"; }; run {prompt}', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: an alias', command: "alias run='sh -c'\nrun {prompt}", shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: $(echo sh)', command: '$(echo sh) -c {prompt}', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: backticks', command: '`echo sh` -c {prompt}', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: ${SHELL:-sh}', command: '${SHELL:-sh} -c {prompt}', shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'a shell: sh -c "$0"', command: "sh -c '$0' {prompt}", shell: true, exploit: payload('a bare command'), needs: ['sh'] },
  { name: 'claude-code: a prefix that is not claude', runtime: 'claude-code', command: 'bash -c' },
  { name: 'claude-code: a wrapper script as the prefix', runtime: 'claude-code', command: 'node stand-in.js' },
  { name: 'claude-code: the prompt placed by hand', runtime: 'claude-code', command: 'claude -p {prompt}' },
  { name: 'codex-cli: a prefix with a subcommand', runtime: 'codex-cli', command: 'codex sandbox linux' },
  { name: 'codex-cli: a placeholder in a script', runtime: 'codex-cli', command: 'codex exec {prompt}', shell: true },
];

/** `STAND_IN` in an accepted preset shape is replaced by the path of the stand-in CLI. */
export const STAND_IN = '@STAND_IN@';

/** Accepted: the allow-list and the environment forms. Each must deliver the value as data, verbatim. */
export const ACCEPTED_SHAPES: readonly Shape[] = [
  { name: "printf '%s'", command: "printf '%s' {prompt}" },
  { name: 'printf %s', command: 'printf %s {prompt}' },
  { name: "printf '%s\\n'", command: "printf '%s\\n' {prompt}" },
  { name: 'printf with text around the value', command: "printf '%s' x{prompt}y" },
  { name: 'the environment, printed by the script', command: 'printf \'%s\' "$HIVEWATCH_PROMPT"', shell: true },
  { name: 'the environment, on stdin', command: 'printf \'%s\' "$HIVEWATCH_PROMPT" | cat', shell: true },
  { name: 'the environment, through xargs -0 to printf', command: "printf '%s' \"$HIVEWATCH_PROMPT\" | xargs -0 printf '%s'", shell: true },
  { name: 'the environment, in a here-document', command: 'cat <<EOF\n$HIVEWATCH_PROMPT\nEOF', shell: true },
  { name: 'the environment, in a nested sh -c', command: 'sh -c \'printf "%s" "$HIVEWATCH_PROMPT"\'', shell: true },
  { name: 'the environment, read by a program (no shell)', command: 'node -e "process.stdout.write(process.env.HIVEWATCH_PROMPT ?? \'\')"' },
  { name: 'the environment, read by python', command: 'python3 -c \'import os, sys; sys.stdout.write(os.environ.get("HIVEWATCH_PROMPT", ""))\'', shell: true },
  { name: 'claude-code: its executable', runtime: 'claude-code', command: STAND_IN },
  { name: 'codex-cli: its executable', runtime: 'codex-cli', command: STAND_IN },
  {
    name: 'claude-code: a script passing the environment on',
    runtime: 'claude-code',
    command: `${STAND_IN} -p --output-format json -- "$HIVEWATCH_PROMPT"`,
    shell: true,
  },
];
