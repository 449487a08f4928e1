import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntimeRegistry } from '../../runtimes/registry.js';
import { DEFAULT_CAPTURE_BYTES } from '../../runtimes/process/tail-buffer.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import {
  endTrace,
  JOURNAL_ARG_CHARS,
  JOURNAL_ARGV_CHARS,
  JOURNAL_PROMPT_CHARS,
  JOURNAL_TAIL_CHARS,
  keepHead,
  keepTail,
  redactSecrets,
  startTrace,
} from './attempt-trace.js';
import { canonicalJournal } from '../model/canonical.js';
import { ofType, planOf, runPlan } from '../testing.js';

const SECRET = 'sk-live-0123456789';
const NO_SECRETS = { env: {} };

describe('attempt trace bounds and redaction', () => {
  it('keeps the head of a long prompt and the tail of a long stream, saying how much was left out', () => {
    expect(keepHead('abcdef', 4)).toBe('abcd\n[… 2 more characters not journaled …]');
    expect(keepTail('abcdef', 4)).toBe('[… 2 earlier characters not journaled …]\ncdef');
    expect(keepHead('abc', 3)).toBe('abc');
    const long = 'x'.repeat(JOURNAL_PROMPT_CHARS + 10);
    const traced = startTrace(long, null, NO_SECRETS);
    expect('prompt' in traced && traced.prompt.startsWith('x'.repeat(JOURNAL_PROMPT_CHARS))).toBe(true);
    expect('prompt' in traced && traced.prompt.endsWith('[… 10 more characters not journaled …]')).toBe(true);
  });

  it('replaces the values of secret-named and declared variables by their names, longest first, and leaves settings', () => {
    const agent = { env: { TOKEN: SECRET, PREFIX_KEY: 'sk-live', SIGNER: 'sk-test-42', MODE: 'timeout' }, secrets: ['SIGNER'] };
    expect(redactSecrets(`use ${SECRET} in ci after a timeout`, agent)).toBe('use [secret TOKEN] in ci after a timeout');
    expect(redactSecrets('sk-live only, sk-test-42 too', agent)).toBe('[secret PREFIX_KEY] only, [secret SIGNER] too');
  });

  it('bounds a command line per argument and as a whole', () => {
    const traced = startTrace('p', ['tool', 'y'.repeat(JOURNAL_ARG_CHARS + 5), ...Array.from({ length: 10 }, () => 'z'.repeat(JOURNAL_ARG_CHARS))], NO_SECRETS);
    const argv = 'argv' in traced ? traced.argv : [];
    expect(argv[1]).toBe(`${'y'.repeat(JOURNAL_ARG_CHARS)}\n[… 5 more characters not journaled …]`);
    expect(argv.at(-1)).toMatch(/^\[… \d+ more arguments not journaled …\]$/);
    expect(argv.slice(0, -1).join('').length).toBeLessThanOrEqual(JOURNAL_ARGV_CHARS);
  });

  it('journals argv when the runtime gives one, the prompt otherwise', () => {
    expect(startTrace('hello', ['tool', '--key', SECRET, 'hello'], { env: { KEY: SECRET } })).toEqual({ argv: ['tool', '--key', '[secret KEY]', 'hello'] });
    expect(startTrace('hello', null, NO_SECRETS)).toEqual({ prompt: 'hello' });
  });

  it('bounds the streams of an attempt end and keeps the output of a success only', () => {
    const stdout = `${'a'.repeat(JOURNAL_TAIL_CHARS)}END`;
    const trace = endTrace({ kind: 'succeeded', output: 'done', process: { exitCode: 0, signal: null, stdout, stderr: '' } }, NO_SECRETS);
    expect(trace).toEqual({
      output: 'done',
      exitCode: 0,
      signal: null,
      stdoutTail: `[… 3 earlier characters not journaled …]\n${'a'.repeat(JOURNAL_TAIL_CHARS - 3)}END`,
      stderrTail: '',
    });
    expect(endTrace({ kind: 'cancelled' }, NO_SECRETS)).toBeNull();
  });
});

describe('attempt trace in the journal', () => {
  it('a command runtime journals its argv at attemptStarted, and exit code and tails at attemptFailed, secrets redacted', async () => {
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
    expect(failed?.trace).toEqual({ exitCode: 3, signal: null, stdoutTail: 'token=[secret TOKEN]\n', stderrTail: 'deploy now\n' });
  });

  it('the fake agent journals the rendered prompt and its output; two runs give one canonical journal', async () => {
    const source = [
      'agent assistant:',
      '  runtime: "fake"',
      'let topic = "queues"',
      'session: assistant',
      '  prompt: "Explain {topic}"',
      '  simulate: "ok:the answer"',
    ].join('\n');
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

const tempDir = tempDirs();

describe('secrets in the journal', () => {
  /** A token whose two halves are told apart: the second is what a cut made before redaction used to keep. */
  const TOKEN = 'tok-FRONT-7c1e9a-BACK-44d2f0';
  const SECOND_HALF = TOKEN.slice(TOKEN.indexOf('-BACK'));

  it('a secret cut in two by the 1 MiB output tail leaves no half in any event (a real child printing more than 1 MiB)', async () => {
    const dir = tempDir('hw-tail-secret-');
    const script = join(dir, 'print.js');
    // What follows the secret's first half is exactly the capture: the cut falls inside the secret.
    const after = DEFAULT_CAPTURE_BYTES - SECOND_HALF.length;
    writeFileSync(script, `process.stdout.write('x'.repeat(200000) + ' ' + process.env.API_TOKEN + ' ' + 'y'.repeat(${after - 2}) + '\\n')`);
    const plan = planOf(
      [
        'agent printer:',
        `  command: ${JSON.stringify(`${process.execPath} ${script}`)}`,
        `  env: ["API_TOKEN=${TOKEN}"]`,
        'agent reader:',
        '  runtime: "noop"',
        'let printed = session: printer',
        '  prompt: "print"',
        'session: reader',
        '  prompt: "read {printed}"',
      ].join('\n'),
    );
    const { result, events } = await runPlan(plan, { registry: createRuntimeRegistry() });
    expect(result.status).toBe('completed');
    const succeeded = ofType(events, 'attemptSucceeded')[0];
    // The head of what was kept is journaled (the output, the channel, the next prompt): it starts at the cut.
    expect(succeeded?.trace?.output).toMatch(/^\[… \d+ bytes truncated …\]\n/);
    const holding = events.filter((event) => JSON.stringify(event).includes('yyyyyyyy')).map((event) => event.type);
    expect(holding).toEqual(expect.arrayContaining(['attemptStarted', 'attemptSucceeded', 'checkpointSaved']));
    for (const event of events) {
      const text = JSON.stringify(event);
      expect(text, event.type).not.toContain(SECOND_HALF.slice(1));
      expect(text, event.type).not.toContain('44d2f0');
    }
  });

  it('journals settings as written and hides only the secret-named and declared values', async () => {
    const plan = planOf(
      [
        'agent deploy:',
        `  command: "sh -c 'echo mode=$MODE env=$NODE_ENV key=$API_KEY salt=$SALT; exit 3'"`,
        `  env: ["MODE=timeout", "NODE_ENV=production", "API_KEY=${TOKEN}", "SALT=pepper-0042"]`,
        '  secrets: [SALT]',
        'session: deploy',
        '  prompt: "ship it with a timeout in production"',
      ].join('\n'),
    );
    const { events } = await runPlan(plan, { registry: createRuntimeRegistry() });
    const failed = ofType(events, 'attemptFailed')[0];
    expect(failed?.trace?.stdoutTail).toBe('mode=timeout env=production key=[secret API_KEY] salt=[secret SALT]\n');
    expect(failed?.error).toMatchObject({ origin: 'runtime:command' });
    const started = ofType(events, 'runStarted')[0];
    expect(started?.flowText).toContain('"MODE=timeout", "NODE_ENV=production", "API_KEY=[secret API_KEY]", "SALT=[secret SALT]"');
    expect(JSON.stringify(events)).not.toMatch(/\[env |tok-FRONT|pepper-0042/);
  });
});
