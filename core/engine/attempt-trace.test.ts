import { describe, expect, it } from 'vitest';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { endTrace, JOURNAL_ARG_CHARS, JOURNAL_ARGV_CHARS, JOURNAL_PROMPT_CHARS, JOURNAL_TAIL_CHARS, keepHead, keepTail, redactEnv, startTrace } from './attempt-trace.js';
import { canonicalJournal } from './model/canonical.js';
import { ofType, planOf, runPlan } from './testing.js';

const SECRET = 'sk-live-0123456789';

describe('attempt trace bounds and redaction', () => {
  it('keeps the head of a long prompt and the tail of a long stream, saying how much was left out', () => {
    expect(keepHead('abcdef', 4)).toBe('abcd\n[… 2 more characters not journaled …]');
    expect(keepTail('abcdef', 4)).toBe('[… 2 earlier characters not journaled …]\ncdef');
    expect(keepHead('abc', 3)).toBe('abc');
    const long = 'x'.repeat(JOURNAL_PROMPT_CHARS + 10);
    const traced = startTrace(long, null, {});
    expect('prompt' in traced && traced.prompt.startsWith('x'.repeat(JOURNAL_PROMPT_CHARS))).toBe(true);
    expect('prompt' in traced && traced.prompt.endsWith('[… 10 more characters not journaled …]')).toBe(true);
  });

  it('replaces env values long enough to be secrets by their names, longest first, and leaves short ones', () => {
    const env = { TOKEN: SECRET, PREFIX: 'sk-live', MODE: 'ci' };
    expect(redactEnv(`use ${SECRET} in ci`, env)).toBe('use [env TOKEN] in ci');
    expect(redactEnv('sk-live only', env)).toBe('[env PREFIX] only');
  });

  it('bounds a command line per argument and as a whole', () => {
    const traced = startTrace('p', ['tool', 'y'.repeat(JOURNAL_ARG_CHARS + 5), ...Array.from({ length: 10 }, () => 'z'.repeat(JOURNAL_ARG_CHARS))], {});
    const argv = 'argv' in traced ? traced.argv : [];
    expect(argv[1]).toBe(`${'y'.repeat(JOURNAL_ARG_CHARS)}\n[… 5 more characters not journaled …]`);
    expect(argv.at(-1)).toMatch(/^\[… \d+ more arguments not journaled …\]$/);
    expect(argv.slice(0, -1).join('').length).toBeLessThanOrEqual(JOURNAL_ARGV_CHARS);
  });

  it('journals argv when the runtime gives one, the prompt otherwise', () => {
    expect(startTrace('hello', ['tool', '--key', SECRET, 'hello'], { KEY: SECRET })).toEqual({ argv: ['tool', '--key', '[env KEY]', 'hello'] });
    expect(startTrace('hello', null, {})).toEqual({ prompt: 'hello' });
  });

  it('bounds the streams of an attempt end and keeps the output of a success only', () => {
    const stdout = `${'a'.repeat(JOURNAL_TAIL_CHARS)}END`;
    const trace = endTrace({ kind: 'succeeded', output: 'done', process: { exitCode: 0, signal: null, stdout, stderr: '' } }, {});
    expect(trace).toEqual({ output: 'done', exitCode: 0, signal: null, stdoutTail: `[… 3 earlier characters not journaled …]\n${'a'.repeat(JOURNAL_TAIL_CHARS - 3)}END`, stderrTail: '' });
    expect(endTrace({ kind: 'cancelled' }, {})).toBeNull();
  });
});

describe('attempt trace in the journal', () => {
  it('a command runtime journals its argv at attemptStarted, and exit code and tails at attemptFailed, env values redacted', async () => {
    const plan = planOf(
      [
        'agent tool:',
        '  runtime: "command"',
        `  command: "sh -c 'echo token=$TOKEN; echo \\"$HIVEWATCH_PROMPT\\" >&2; exit 3'"`,
        `  env: ["TOKEN=${SECRET}"]`,
        `session: tool`,
        `  prompt: "deploy now"`,
      ].join('\n'),
    );
    const { events } = await runPlan(plan, { registry: createRuntimeRegistry() });
    const started = ofType(events, 'attemptStarted')[0];
    expect(started?.argv).toEqual(['sh', '-c', 'echo token=$TOKEN; echo "$HIVEWATCH_PROMPT" >&2; exit 3']);
    expect(started?.prompt).toBeUndefined();
    const failed = ofType(events, 'attemptFailed')[0];
    expect(failed?.trace).toEqual({ exitCode: 3, signal: null, stdoutTail: 'token=[env TOKEN]\n', stderrTail: 'deploy now\n' });
  });

  it('the fake agent journals the rendered prompt and its output; two runs give one canonical journal', async () => {
    const source = ['agent assistant:', '  runtime: "fake"', 'let topic = "queues"', 'session: assistant', '  prompt: "Explain {topic}"', '  simulate: "ok:the answer"'].join('\n');
    const first = await runPlan(planOf(source), { registry: createRuntimeRegistry() });
    const second = await runPlan(planOf(source), { registry: createRuntimeRegistry() });
    expect(ofType(first.events, 'attemptStarted')[0]?.prompt).toBe('Explain queues');
    expect(ofType(first.events, 'attemptSucceeded')[0]?.trace).toEqual({
      output: 'the answer',
      exitCode: 0,
      signal: null,
      stdoutTail: '{"result":"the answer","changes":1}\n',
      stderrTail: '',
    });
    expect(canonicalJournal(second.events)).toEqual(canonicalJournal(first.events));
  });
});
