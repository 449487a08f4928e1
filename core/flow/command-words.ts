import { literalOf, type WordPiece } from './shell-words.js';
import type { TemplateRef } from './template.js';

/**
 * What a command does with its arguments, for the placeholders in them (issue #25 part 3).
 * Quoting makes a value one word, but some programs run a word as code: `eval`, `sh -c`, an
 * interpreter's `-c`/`-e`, `ssh` (the remote shell parses its arguments), bash's `[[ … ]]`
 * arithmetic. A placeholder that lands there is refused whatever the quoting; so is one that
 * names the program itself, or an option of a program that runs another one (`sudo`, `env`,
 * `xargs`, …), whose command is then judged the same way.
 *
 * The lists are of well-known programs; a program not listed is taken to treat its arguments as
 * data. That is why the safe form documented everywhere is the environment (`$HIVEWATCH_PROMPT`)
 * or stdin, which no program parses as its own command line.
 */

export interface CommandWord {
  pieces: WordPiece[];
  /** Shell words only: quoted or escaped somewhere (never a reserved word, never an assignment). */
  quoted?: boolean;
  /** Shell words only: holds an expansion whose value only the shell knows ($SHELL, $(…)). */
  expands?: boolean;
  /** Shell words only: the target of a redirection. */
  redirect?: boolean;
  /** Shell words only: quoting began before any `=` (`"X=1"` is a command word, not an assignment). */
  quotedName?: boolean;
}

export type Refuse = (ref: TemplateRef, why: string) => void;

const refsOf = (word: CommandWord | undefined): TemplateRef[] => (word ? word.pieces.filter((p): p is TemplateRef => typeof p !== 'string') : []);
const refuseAll = (words: readonly CommandWord[], refuse: Refuse, why: string): void => {
  for (const word of words) for (const ref of refsOf(word)) refuse(ref, why);
};

/** `/usr/bin/python3.12` → `python3.12`. */
function programName(word: CommandWord): string {
  const text = literalOf(word);
  return text.slice(text.lastIndexOf('/') + 1);
}

const SHELLS = /^(?:sh|bash|rbash|dash|zsh|ksh|ksh93|mksh|pdksh|ash|yash|posh|fish|csh|tcsh)$/;

/** Programs whose every argument is code, or chooses code, or is joined into a command line. */
const EVALUATORS: ReadonlyMap<string, string> = new Map(Object.entries({
  eval: 'eval runs its arguments as shell code',
  trap: 'trap runs its argument as shell code',
  alias: 'an alias is shell code',
  source: 'source runs the file it is given',
  '.': '. runs the file it is given',
  let: 'let evaluates arithmetic, and bash runs $(…) found in array subscripts',
  declare: 'declare evaluates array subscripts in the names it is given (bash)',
  typeset: 'typeset evaluates array subscripts in the names it is given (bash)',
  local: 'local evaluates array subscripts in the names it is given (bash)',
  export: 'export evaluates array subscripts in the names it is given (bash); write NAME={prompt} command instead',
  readonly: 'readonly evaluates array subscripts in the names it is given (bash)',
  unset: 'unset evaluates array subscripts in the names it is given (bash)',
  read: 'read evaluates array subscripts in the names it is given (bash)',
  mapfile: 'mapfile evaluates array subscripts and runs its -C callback (bash)',
  readarray: 'readarray evaluates array subscripts and runs its -C callback (bash)',
  getopts: 'getopts evaluates array subscripts in the names it is given (bash)',
  complete: 'complete runs its -C command (bash)',
  bind: 'bind -x runs shell code (bash)',
  '[[': 'the arithmetic comparisons of [[ … ]] run $(…) found in the value (bash)',
  ssh: 'ssh joins its arguments into one command line that the remote shell parses',
  watch: 'watch joins its arguments into a command line for sh -c',
  parallel: 'GNU parallel runs its arguments through a shell',
  su: 'su -c runs a shell command',
  runuser: 'runuser -c runs a shell command',
  script: 'script -c runs a shell command',
  tmux: 'tmux runs its command arguments through a shell',
  screen: 'screen runs its command arguments',
  at: 'at runs shell commands',
  batch: 'batch runs shell commands',
}));

/** Programs that run the command their arguments name: options, then operands, then a command. */
interface Runner {
  /** Options whose value is the next word. */
  valueOptions?: readonly string[];
  /** Options after which the rest is shell code (`sudo -s`, `env -S`, `flock -c`). */
  shellOptions?: readonly string[];
  /** Operands before the command (`timeout 10s cmd`, `chroot /dir cmd`). */
  operands?: number;
  /** `env NAME=value cmd`: assignments before the command (their values are data). */
  assignments?: boolean;
}

const RUNNERS: ReadonlyMap<string, Runner> = new Map(Object.entries({
  env: { valueOptions: ['-u', '--unset', '-C', '--chdir'], shellOptions: ['-S', '--split-string'], assignments: true },
  sudo: { valueOptions: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R'], shellOptions: ['-s', '-i', '--shell', '--login'] },
  doas: { valueOptions: ['-u', '-C'], shellOptions: ['-s'] },
  nohup: {},
  exec: { valueOptions: ['-a'] },
  command: {},
  builtin: {},
  time: { valueOptions: ['-f', '-o', '--format', '--output'] },
  nice: { valueOptions: ['-n', '--adjustment'] },
  ionice: { valueOptions: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
  timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  setsid: {},
  chroot: { valueOptions: ['--userspec', '--groups'], operands: 1 },
  chrt: { operands: 1 },
  taskset: { operands: 1 },
  unbuffer: {},
  xargs: { valueOptions: ['-I', '-i', '-n', '-L', '-l', '-P', '-d', '-E', '-e', '-a', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs'] },
  flock: { valueOptions: ['-w', '-E', '--timeout', '--conflict-exit-code'], shellOptions: ['-c', '--command'], operands: 1 },
  busybox: {},
  npx: { valueOptions: ['-p', '--package'], shellOptions: ['-c', '--call'] },
  bunx: {},
  coproc: {},
  strace: { valueOptions: ['-o', '-e', '-p', '-s', '-u'] },
} satisfies Record<string, Runner>));

/** Interpreters: the flags whose value is code (or chooses code), else the first operand is a script. */
interface Interpreter {
  codeFlags: readonly string[];
  /** Options that take a value that is not code (their value is still refused: it configures the run). */
  valueFlags?: readonly string[];
  /** awk / sed: without a code flag the first operand is the program text itself. */
  programOperand?: boolean;
}

const PYTHON: Interpreter = { codeFlags: ['-c', '-m'], valueFlags: ['-W', '-X', '-Q'] };
const INTERPRETERS: readonly [RegExp, Interpreter][] = [
  [/^(?:python|pypy)[0-9.]*$/, PYTHON],
  [/^(?:node|nodejs)$/, { codeFlags: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader'] }],
  [/^deno$/, { codeFlags: ['eval', '--eval'] }],
  [/^bun$/, { codeFlags: ['-e', '--eval', '-p', '--print', '-r', '--preload'] }],
  [/^perl[0-9.]*$/, { codeFlags: ['-e', '-E', '-M', '-m'], valueFlags: ['-I', '-x'] }],
  [/^ruby[0-9.]*$/, { codeFlags: ['-e', '-r'], valueFlags: ['-I', '-C'] }],
  [/^php[0-9.]*$/, { codeFlags: ['-r', '-B', '-R', '-E', '-F', '-f'], valueFlags: ['-d', '-c'] }],
  [/^(?:lua[0-9.]*|luajit)$/, { codeFlags: ['-e', '-l'] }],
  [/^(?:R|Rscript|julia|osascript|groovy|scala|jshell)$/, { codeFlags: ['-e', '--eval'] }],
  [/^(?:pwsh|powershell)$/, { codeFlags: ['-c', '-Command', '-command', '-EncodedCommand', '-e', '-File', '-f'] }],
  [/^(?:awk|gawk|mawk|nawk)$/, { codeFlags: ['-f', '-e', '--source', '--file', '-i', '--include'], valueFlags: ['-F', '--field-separator'], programOperand: true }],
  [/^(?:sed|gsed)$/, { codeFlags: ['-e', '--expression', '-f', '--file'], valueFlags: ['-l', '--line-length'], programOperand: true }],
];

/** Bash reserved words that may start a command; the command proper follows them. */
const LEADING_KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac', 'in']);

const isOption = (text: string): boolean => text.length > 1 && (text.startsWith('-') || text.startsWith('+'));
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

/**
 * Judges one simple command. `shell`: its words come from a `shell: true` script (assignments,
 * reserved words and redirections exist); otherwise it is an argv template (no shell).
 */
export function judgeCommand(words: readonly CommandWord[], shell: boolean, refuse: Refuse): void {
  if (!shell) return judgeProgram(words, refuse);
  refuseAll(
    words.filter((w) => w.redirect),
    refuse,
    'it would choose the file a redirection reads or writes',
  );
  const command = skipShellPrefix(
    words.filter((w) => !w.redirect),
    refuse,
  );
  if (command !== null) judgeProgram(command, refuse);
}

/** Reserved words and assignments before the command word; null when the command needs no further judging. */
function skipShellPrefix(words: readonly CommandWord[], refuse: Refuse): readonly CommandWord[] | null {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i] as CommandWord;
    const text = literalOf(word);
    const assignment = word.quotedName ? null : ASSIGNMENT.exec(text);
    if (assignment) {
      // NAME={prompt} is data; a placeholder in the name or the subscript is evaluated (bash).
      if ((assignment[0] as string).includes('\0')) refuseAll([word], refuse, 'it is in a variable name or array subscript, which bash evaluates as arithmetic');
      continue;
    }
    if (word.quoted || text.includes('\0')) break;
    if (LEADING_KEYWORDS.has(text)) continue;
    if (text === 'case') return null; // `case WORD in`: the word is matched, never run
    if (text === 'for' || text === 'select' || text === 'function') {
      refuseAll(words.slice(i + 1, i + 2), refuse, `it would name the variable or function of ${text}`);
      return null; // the rest of `for x in …` is a list of data words
    }
    break;
  }
  return words.slice(i);
}

function judgeProgram(words: readonly CommandWord[], refuse: Refuse): void {
  const [first, ...args] = words;
  if (first === undefined) return;
  if (refsOf(first).length > 0) {
    refuseAll([first], refuse, 'it would be the command name: the value would choose the program to run');
    return;
  }
  const name = programName(first);
  if (first.expands && /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(literalOf(first).trim())) {
    refuseAll(args, refuse, `the program ${literalOf(first)} is chosen when the command runs, so nothing tells whether it runs its arguments as code`);
    return;
  }
  const evaluator = EVALUATORS.get(name);
  if (evaluator !== undefined) return refuseAll(args, refuse, evaluator);
  if (name === '((') return refuseAll(args, refuse, 'arithmetic runs $(…) found in array subscripts (bash)');
  const runner = RUNNERS.get(name);
  if (runner !== undefined) return judgeRunner(name, runner, args, refuse);
  if (SHELLS.test(name)) return judgeShell(name, args, refuse);
  if (name === 'find') return judgeFind(args, refuse);
  const interpreter = INTERPRETERS.find(([pattern]) => pattern.test(name))?.[1];
  if (interpreter !== undefined) judgeInterpreter(name, interpreter, args, refuse);
}

function judgeRunner(name: string, runner: Runner, args: readonly CommandWord[], refuse: Refuse): void {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as CommandWord;
    const text = literalOf(word);
    if (text === '--') {
      i++;
      break;
    }
    if (!isOption(text)) break;
    const cluster = /^-[A-Za-z]+$/.test(text);
    if (runner.shellOptions?.some((o) => text === o || (cluster && /^-[A-Za-z]$/.test(o) && text.includes(o[1] as string)))) {
      refuseAll(args.slice(i), refuse, `${name} ${text} runs a shell command line`);
      return;
    }
    refuseAll([word], refuse, `it would be an option of ${name}, which decides how ${name} runs its command`);
    if (runner.valueOptions?.includes(text)) refuseAll([args[++i] as CommandWord].filter(Boolean), refuse, `it would be the value of ${name} ${text}`);
  }
  while (runner.assignments && i < args.length && !(ASSIGNMENT.exec(literalOf(args[i] as CommandWord))?.[0] ?? '\0').includes('\0')) i++;
  for (let n = 0; n < (runner.operands ?? 0) && i < args.length; n++, i++) refuseAll([args[i] as CommandWord], refuse, `it would be an operand of ${name}, which decides how it runs its command`);
  judgeProgram(args.slice(i), refuse);
}

/** `sh [options] [-c] SCRIPT [name args…]`: the script operand (after every option) is code. */
function judgeShell(name: string, args: readonly CommandWord[], refuse: Refuse): void {
  let command = false;
  let stdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as CommandWord;
    const text = literalOf(word);
    if (text === '--' || text === '-') {
      i++;
      break;
    }
    if (!isOption(text)) break;
    refuseAll([word], refuse, `it would be an option of ${name}`);
    if (text === '--command' || (!text.startsWith('--') && text.includes('c'))) command = true;
    if (!text.startsWith('--') && text.includes('s')) stdin = true;
    if (text === '-o' || text === '+o' || text === '-O' || text === '+O' || text === '--rcfile' || text === '--init-file') {
      refuseAll([args[++i] as CommandWord].filter(Boolean), refuse, `it would be the value of ${name} ${text}`);
    }
  }
  if (stdin && !command) return; // `sh -s args…`: the script comes from stdin, the words are its arguments
  const script = args[i];
  const why = command
    ? `${name} -c parses this string as shell code, so the quoting around it does not protect it (an argument after the script stays data: ${name} -c '… "$1" …' ${name} {prompt})`
    : `it would choose the script that ${name} runs`;
  refuseAll([script].filter((w): w is CommandWord => w !== undefined), refuse, why);
}

function judgeInterpreter(name: string, interpreter: Interpreter, args: readonly CommandWord[], refuse: Refuse): void {
  let sawCode = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as CommandWord;
    const text = literalOf(word);
    if (text === '--') {
      if (!sawCode && interpreter.programOperand) refuseAll([args[i + 1] as CommandWord].filter(Boolean), refuse, `${name} runs its program text as code`);
      else if (!sawCode) refuseAll([args[i + 1] as CommandWord].filter(Boolean), refuse, `it would choose the script that ${name} runs`);
      return;
    }
    const code = interpreter.codeFlags.find((flag) => text === flag);
    if (code !== undefined) {
      sawCode = true;
      refuseAll([args[++i] as CommandWord].filter(Boolean), refuse, `${name} ${code} runs this value as code`);
      // python -c / -m end the options: what follows is the program's own arguments.
      if (interpreter === PYTHON) return;
      continue;
    }
    if (isOption(text)) {
      refuseAll([word], refuse, `it would be an option of ${name}, which decides what code it runs`);
      if (interpreter.valueFlags?.includes(text)) refuseAll([args[++i] as CommandWord].filter(Boolean), refuse, `it would be the value of ${name} ${text}`);
      continue;
    }
    if (interpreter.programOperand && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text) && name.endsWith('awk')) continue; // awk var=value operands are data
    if (!sawCode) refuseAll([word], refuse, interpreter.programOperand ? `${name} runs its program text as code` : `it would choose the script that ${name} runs`);
    return; // the script's (or program's) own arguments follow: data
  }
}

/** `find … -exec CMD … ;`: the words between -exec and `;` / `+` are a command. */
function judgeFind(args: readonly CommandWord[], refuse: Refuse): void {
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(literalOf(args[i] as CommandWord))) continue;
    let end = i + 1;
    while (end < args.length && ![';', '+'].includes(literalOf(args[end] as CommandWord))) end++;
    judgeProgram(args.slice(i + 1, end), refuse);
    i = end;
  }
}
