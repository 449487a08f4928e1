import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/temp-dirs.js';
import { shellQuote } from './command-line.js';
import { CommandRuntime } from './command.js';
import type { AttemptResult } from './runtime.js';
import { agent, attempt, NEVER } from './testing.js';
import { truncationMarker } from './process/tail-buffer.js';

const NODE = shellQuote(process.execPath);
const runtime = new CommandRuntime({ killGraceMs: 300 });
const dir = tempDirs()('hw-command-runtime-');
const HOSTILE = `it's "quoted"; echo injected; $(echo sub) \`echo tick\` && rm -rf ~ | cat > x \\ {model} *`;

function run(
  command: string,
  overrides: Parameters<typeof attempt>[0] = {},
  agentOverrides: Parameters<typeof agent>[0] = {},
  signal = NEVER,
): Promise<AttemptResult> {
  return runtime.execute(attempt({ agent: agent({ command, ...agentOverrides }), ...overrides }), signal);
}

function failure(result: AttemptResult) {
  if (result.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('command runtime', () => {
  it('succeeds with the trimmed stdout', async () => {
    expect(await run(`${NODE} -e "console.log('  hello  ')"`)).toEqual({
      kind: 'succeeded',
      output: 'hello',
      // What the inspector journals (bounded by the engine): the process's exit and its capture.
      process: { exitCode: 0, signal: null, stdout: '  hello  \n', stderr: '' },
    });
  });

  it("passes the prompt to printf '%s' as exactly one argv element, whatever it contains", async () => {
    const result = await run(`printf '%s\\n' {prompt} --last`, { prompt: HOSTILE });
    expect(result).toMatchObject({ kind: 'succeeded', output: `${HOSTILE}\n--last` });
  });

  it('substitutes {model}', async () => {
    const result = await run(`printf '%s' --model={model}`, {}, { model: 'opus' });
    expect(result).toMatchObject({ kind: 'succeeded', output: '--model=opus' });
  });

  it('with shell: true runs /bin/sh -c, and the script reads the prompt from the environment as data', async () => {
    const result = await run(`printf '%s|' "$HIVEWATCH_PROMPT" "in double $HIVEWATCH_PROMPT" | tr -d '\\n'`, { prompt: HOSTILE }, { shell: true });
    expect(result).toMatchObject({ kind: 'succeeded', output: `${HOSTILE}|in double ${HOSTILE}|` });
  });

  it('refuses a value given to a program not known to take it as data, starting nothing', async () => {
    const result = await run(`${NODE} -e "console.log(process.argv[1])" {prompt}`);
    expect(failure(result).message).toMatch(/^agent "tester" \(runtime command\): command: \{prompt\} cannot be used here: it would be an argument of /);
    expect(result.kind === 'failed' && result.process).toBeUndefined();
  });

  it('gives the child the agent env and the attempt in HIVEWATCH_* variables', async () => {
    const result = await run(
      `${NODE} -e "const e = process.env; console.log([e.MY_VAR, e.HIVEWATCH_RUN_ID, e.HIVEWATCH_TASK_ID, e.HIVEWATCH_ATTEMPT].join('|'))"`,
      { attempt: 2 },
      { env: { MY_VAR: 'mine' } },
    );
    expect(result).toMatchObject({ kind: 'succeeded', output: 'mine|run-1|task-1|2' });
  });

  it('reports a non-zero exit as RUNTIME_CRASHED with the first stderr line', async () => {
    const error = failure(await run(`${NODE} -e "console.error('boom happened'); process.exit(3)"`));
    expect(error.code).toBe('RUNTIME_CRASHED');
    expect(error.origin).toBe('runtime:command');
    expect(error.message).toBe('runtime command exited with code 3: boom happened');
    expect(error.context).toMatchObject({ exitCode: 3, signal: null });
  });

  it('reports a rate-limit message on stderr as RUNTIME_RATE_LIMIT', async () => {
    const error = failure(await run(`${NODE} -e "console.error('HTTP 429 Too Many Requests'); process.exit(1)"`));
    expect(error.code).toBe('RUNTIME_RATE_LIMIT');
  });

  it('reports a missing command as RUNTIME_CONNECTION_FAILED naming it', async () => {
    const error = failure(await run('nope-cli-hivewatch -p'));
    expect(error.code).toBe('RUNTIME_CONNECTION_FAILED');
    expect(error.message).toBe('could not start runtime command: command not found: "nope-cli-hivewatch" (ENOENT)');
    expect(error.recoverable).toBe(false);
    expect(error.context).toMatchObject({ spawnCode: 'ENOENT' });
  });

  it('stops a child at the attempt timeout: RUNTIME_TIMEOUT', async () => {
    const error = failure(await run(`${NODE} -e "setInterval(() => {}, 1000)"`, { timeoutMs: 200 }));
    expect(error.code).toBe('RUNTIME_TIMEOUT');
    expect(error.message).toBe('runtime command exceeded its timeout of 200ms');
    expect(error.context).toMatchObject({ signal: 'SIGTERM' });
  });

  it('SIGKILLs a child that ignores SIGTERM after the grace period', async () => {
    const error = failure(await run(`/bin/sh -c "trap '' TERM; sleep 30"`, { timeoutMs: 200 }));
    expect(error.code).toBe('RUNTIME_TIMEOUT');
    expect(error.context).toMatchObject({ signal: 'SIGKILL' });
  });

  it('is cancelled by its abort signal', async () => {
    const controller = new AbortController();
    const pending = run(`${NODE} -e "setInterval(() => {}, 1000)"`, {}, {}, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ kind: 'cancelled' });
  });

  it('refuses a prompt too large for one argument or environment string before it starts, as the user error it is', async () => {
    const marker = join(dir, 'started');
    for (const command of [`printf '%s' {prompt}`, `touch ${marker}`]) {
      const error = failure(await run(command, { prompt: 'x'.repeat(200 * 1024) }));
      expect(error.code).toBe('USER_INVALID_PROMPT');
      expect(error.message).toBe(
        'agent "tester" (runtime command): the prompt is 204800 bytes; an agent is given its prompt as HIVEWATCH_PROMPT or an argument, and Linux allows at most 131054 bytes there (128 KiB per string); pass less into it',
      );
    }
    expect(existsSync(marker)).toBe(false);
    // The largest prompt that fits still arrives whole, through the environment.
    const largest = 'y'.repeat(131_054);
    const fits = await run(`${NODE} -e "process.stdout.write(String(process.env.HIVEWATCH_PROMPT.length))"`, { prompt: largest });
    expect(fits).toMatchObject({ kind: 'succeeded', output: '131054' });
  });

  it('refuses a prompt holding a NUL before it starts, with its own error rather than a failed start', async () => {
    const error = failure(await run(`printf '%s' {prompt}`, { prompt: 'before\0after' }));
    expect(error.code).toBe('USER_INVALID_PROMPT');
    expect(error.message).toMatch(/^agent "tester" \(runtime command\): the prompt holds a NUL character \(at character 6\)/);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await run('nope-cli-hivewatch', {}, {}, controller.signal)).toEqual({ kind: 'cancelled' });
  });

  it('completes with at most 1 MiB of output when the child floods stdout', async () => {
    const flood = `${NODE} -e "const b = Buffer.alloc(1048576, 97); for (let i = 0; i < 50; i++) process.stdout.write(b); process.stdout.write('END')"`;
    const result = await run(flood);
    if (result.kind !== 'succeeded') throw new Error(result.kind);
    const dropped = 50 * 1048576 + 3 - 1048576;
    expect(result.output.length).toBe(truncationMarker(dropped).length + 1048576);
    expect(result.output.startsWith(truncationMarker(dropped))).toBe(true);
    expect(result.output.endsWith('aEND')).toBe(true);
    expect(result.meta).toEqual({ stdoutDroppedBytes: dropped });
  });

  it('reports an unusable command as the user configuration error it is', async () => {
    const noCommand = failure(await runtime.execute(attempt({ agent: agent({ name: 'coder' }) }), NEVER));
    expect(noCommand.code).toBe('USER_INVALID_CONFIG');
    expect(noCommand.origin).toBe('user');
    expect(noCommand.message).toBe('agent "coder" (runtime command): no command: given; set command: "tool" (it finds the prompt in $HIVEWATCH_PROMPT)');
    expect(failure(await run('tool "open')).message).toBe('agent "tester" (runtime command): command: unterminated double quote in command');
    expect(failure(await run("printf '%s' {model}")).message).toBe('agent "tester" (runtime command): command uses {model} but the agent sets no model');
    expect(failure(await run('   ')).message).toBe('agent "tester" (runtime command): command: is empty');
  });
});
