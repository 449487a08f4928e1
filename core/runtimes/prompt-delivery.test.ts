import { describe, expect, it } from 'vitest';
import { planOf } from '../engine/testing.js';
import { CLAUDE_ARGV_ECHO, CODEX_ARGV_ECHO, writeCliStandIn } from '../testing/cli-stand-in.js';
import { flowString } from '../testing/prompt-shapes.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { attemptEnv, commandArgv } from './command.js';
import { runProcess } from './process/process.js';
import { createRuntimeRegistry } from './registry.js';
import type { AttemptRequest } from './runtime.js';

/**
 * The allowed forms deliver a value byte for byte: quotes, newlines (leading and trailing too),
 * `$(…)` and backticks, a leading `-`, `--` alone, non-ASCII text, the empty string and 100 KiB.
 * What the process received is read back untrimmed: raw stdout of the command the runtime builds,
 * run with the environment it gives, or as JSON through the whole runtime.
 */

const dir = tempDirs()('hw-prompt-delivery-');
const registry = createRuntimeRegistry({ killGraceMs: 200 });

const VALUES: readonly [string, string][] = [
  ['quotes', `it's "quoted" \\"and\\' escaped`],
  ['newlines', '\nfirst\n\nlast\n'],
  ['command substitution and backticks', '$(touch x) `touch y` ${HOME} $HIVEWATCH_PROMPT'],
  ['a leading dash', '-n'],
  ['an option', '--help'],
  ['two dashes', '--'],
  ['one dash', '-'],
  ['spaces and tabs around', '  \tpadded\t  '],
  ['non-ASCII', 'naïve ☃ 中文 \u{1F600}'],
  ['percent directives', '%s %d %n %b \\n \\c'],
  ['the empty string', ''],
  ['100 KiB', 'x\n'.repeat(50 * 1024)],
];

/** Prints stdin as one JSON string, so that the runtime's trimming of its output cannot hide a byte. */
const STDIN_AS_JSON = `node -e "let s = ''; process.stdin.setEncoding('utf8').on('data', (d) => { s += d; }).on('end', () => process.stdout.write(JSON.stringify(s)))"`;

function agent(command: string, options: { shell?: boolean; runtime?: string } = {}) {
  const source = [
    'agent sink:',
    `  runtime: "${options.runtime ?? 'command'}"`,
    `  command: ${flowString(command)}`,
    `  shell: ${String(options.shell ?? false)}`,
    '  model: "model \\"x\\" $(y) -m"',
    'session: sink',
    '  prompt: "x"',
    '',
  ].join('\n');
  const spec = planOf(source).agents.get('sink'); // planOf throws unless check accepts the flow
  if (spec === undefined) throw new Error('no agent');
  return spec;
}

function request(spec: ReturnType<typeof agent>, prompt: string): AttemptRequest {
  return { runId: 'run_delivery', taskId: '1:0', ordinal: 0, attempt: 1, prompt, agent: spec, simulate: null, timeoutMs: 20_000, context: {}, cwd: dir };
}

/** Runs the argv the command runtime builds, with the environment it gives, and returns raw stdout. */
async function rawOutput(spec: ReturnType<typeof agent>, prompt: string): Promise<string> {
  const argv = commandArgv(spec, prompt);
  if (!Array.isArray(argv)) throw new Error(JSON.stringify(argv));
  const ran = await runProcess({ argv, runtimeName: 'command', cwd: dir, env: attemptEnv(request(spec, prompt)), timeoutMs: 20_000 });
  expect(ran.exitCode).toBe(0);
  return ran.stdout;
}

async function runtimeOutput(spec: ReturnType<typeof agent>, prompt: string): Promise<string> {
  const result = await registry.forAgent(spec).execute(request(spec, prompt), new AbortController().signal);
  if (result.kind !== 'succeeded') throw new Error(JSON.stringify(result));
  return result.output;
}

describe.each(VALUES)('a value with %s arrives byte for byte', (_name, value) => {
  it("as printf '%s' {prompt} and printf '%s\\n' {prompt} {model} print it", async () => {
    expect(await rawOutput(agent("printf '%s' {prompt}"), value)).toBe(value);
    expect(await rawOutput(agent("printf '%s\\n' {prompt} {model}"), value)).toBe(`${value}\nmodel "x" $(y) -m\n`);
  });

  it('in the environment, printed by a shell: true script', async () => {
    expect(await rawOutput(agent('printf \'%s\' "$HIVEWATCH_PROMPT"', { shell: true }), value)).toBe(value);
    expect(await rawOutput(agent('printf \'%s\' "$HIVEWATCH_MODEL"', { shell: true }), value)).toBe('model "x" $(y) -m');
  });

  it('on stdin, through the whole command runtime', async () => {
    expect(JSON.parse(await runtimeOutput(agent(`printf '%s' "$HIVEWATCH_PROMPT" | ${STDIN_AS_JSON}`, { shell: true }), value))).toBe(value);
  });

  it('to the presets, as the last argument after --', async () => {
    const claude = writeCliStandIn(dir, 'claude', CLAUDE_ARGV_ECHO, 'delivery');
    const codex = writeCliStandIn(dir, 'codex', CODEX_ARGV_ECHO, 'delivery');
    const claudeArgv = JSON.parse(await runtimeOutput(agent(claude, { runtime: 'claude-code' }), value)) as string[];
    expect(claudeArgv).toEqual(['-p', '--output-format', 'json', '--model', 'model "x" $(y) -m', '--', value]);
    const codexArgv = JSON.parse(await runtimeOutput(agent(codex, { runtime: 'codex-cli' }), value)) as string[];
    expect(codexArgv.slice(-4)).toEqual(['--model', 'model "x" $(y) -m', '--', value]);
    const script = agent(`${claude} -p --output-format json -- "$HIVEWATCH_PROMPT"`, { runtime: 'claude-code', shell: true });
    expect(JSON.parse(await runtimeOutput(script, value))).toEqual(['-p', '--output-format', 'json', '--', value]);
  });
});
