import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../syntax/ast.js';
import { checkFlow, checkFlowFile } from './check.js';

function check(source: string): string[] {
  return checkFlow(source, 'flow.prose').diagnostics.map(formatDiagnostic);
}

describe('checkFlow: one problem each, at its exact token', () => {
  it('unterminated string', () => {
    expect(check('session "Write the plan\nsession "next"')).toEqual(['flow.prose:1:9: unterminated string: a string must end with " on the same line']);
  });

  it('bad indentation (a dedent to no open block)', () => {
    expect(check('try:\n    session "a"\n  session "b"\ncatch:\n  session "c"')).toEqual([
      'flow.prose:3:3: inconsistent indentation: the dedent to column 3 matches no enclosing block (blocks start at column 1, 5)',
    ]);
  });

  it('tabs mixed with spaces', () => {
    expect(check('do:\n  session "a"\n\tsession "b"')).toEqual([
      'flow.prose:3:1: indentation mixes tabs and spaces: indent with one of them throughout the file',
    ]);
  });

  it('unknown property', () => {
    expect(check('session "Call the API"\n  retries: 3')).toEqual([
      'flow.prose:2:3: unknown property "retries" for a session: expected one of prompt, context, timeout, simulate, retry, backoff, delay, max-delay, agent, workspace, scope, expect-changes, verify, verifier, check-timeout',
    ]);
  });

  it('catch without try', () => {
    expect(check('session "a"\ncatch err:\n  session "Handle {err.message}"')).toEqual([
      'flow.prose:2:1: catch without a matching try: a catch block must directly follow the body of a try',
    ]);
  });

  it('retry: -1', () => {
    expect(check('session "Flaky" (retry: -1)')).toEqual(['flow.prose:1:25: retry must be a whole number of at least 0, got -1']);
  });

  it('backoff: "sometimes"', () => {
    expect(check('session "Flaky" (retry: 3, backoff: "sometimes")')).toEqual([
      'flow.prose:1:37: backoff must be one of none, fixed, linear, exponential or a list of delays, got "sometimes"',
    ]);
  });

  it('unknown agent', () => {
    expect(check('session: ghost\n  prompt: "Boo"')).toEqual([
      'flow.prose:1:10: unknown agent "ghost": declare it with agent ghost: or use one of fake, claude-code, codex-cli, noop',
    ]);
  });

  it('bad simulate', () => {
    expect(check('session "Call"\n  simulate: "rate_limit, explode"')).toEqual([
      'flow.prose:2:13: unknown simulated outcome "explode": expected one of ok, ok:<text>, rate_limit, timeout, crash, exit:<n>, malformed, no_changes, slow:<duration>',
    ]);
    expect(check('session "Call"\n  simulate: "exit:300"')).toEqual(['flow.prose:2:13: outcome "exit" needs a code from 0 to 255, e.g. "exit:2"']);
  });

  it('bare throw outside a catch', () => {
    expect(check('try:\n  throw\nfinally:\n  session "cleanup"')).toEqual([
      'flow.prose:2:3: throw without a message rethrows the error being handled, so it must be inside a catch block; write throw "message" to raise a new error',
    ]);
  });

  it('undefined {name}', () => {
    expect(check('let plan = session "Plan"\nsession "Implement {plna}"')).toEqual([
      'flow.prose:2:20: undefined name "plna" in {plna}: no variable, caught error or repeat index of that name is in scope here',
    ]);
  });

  it('bad duration', () => {
    expect(check('session "a"\n  timeout: "ten minutes"')).toEqual([
      'flow.prose:2:12: invalid duration "ten minutes": expected a number with a unit (ms, s, m, h), e.g. "30s"',
    ]);
  });
});

describe('checkFlow: a file with several problems', () => {
  it('reports all of them, sorted by line and column, without follow-on errors', () => {
    const source = [
      'agent coder:', // 1
      '  runtime: "docker"', // 2: unknown runtime
      '', // 3
      'let plan = session "Plan" "extra"', // 4: syntax error; `plan` still counts as declared
      'session "Use {plan} and {nothing}"', // 5: {nothing} undefined
      '  retry: -1', // 6
      '  backoff: "sometimes"', // 7
      '  colour: blue', // 8: unknown property
      'session: ghost', // 9: unknown agent
      'catch:', // 10: catch without try
      '  throw', // 11: fine: inside the (orphan) catch
      'throw', // 12: bare throw outside a catch
      'session "unterminated', // 13
      'repeat 0:', // 14
      '\tsession "tab"', // 15: a tab where the file indents with spaces
      'do:', // 16
      '  session "spaces" (simulate: "nope")', // 17: bad simulate
    ].join('\n');
    expect(check(source)).toEqual([
      'flow.prose:2:12: unknown runtime "docker": expected one of command, fake, claude-code, codex-cli, noop',
      'flow.prose:4:27: expected the end of the line after the session, got a string',
      'flow.prose:5:25: undefined name "nothing" in {nothing}: no variable, caught error or repeat index of that name is in scope here',
      'flow.prose:6:10: retry must be a whole number of at least 0, got -1',
      'flow.prose:7:12: backoff must be one of none, fixed, linear, exponential or a list of delays, got "sometimes"',
      'flow.prose:8:3: unknown property "colour" for a session: expected one of prompt, context, timeout, simulate, retry, backoff, delay, max-delay, agent, workspace, scope, expect-changes, verify, verifier, check-timeout',
      'flow.prose:9:10: unknown agent "ghost": declare it with agent ghost: or use one of fake, claude-code, codex-cli, noop',
      'flow.prose:10:1: catch without a matching try: a catch block must directly follow the body of a try',
      'flow.prose:12:1: throw without a message rethrows the error being handled, so it must be inside a catch block; write throw "message" to raise a new error',
      'flow.prose:13:9: unterminated string: a string must end with " on the same line',
      'flow.prose:14:8: repeat count must be a positive whole number, got 0',
      'flow.prose:15:1: indentation mixes tabs and spaces: indent with one of them throughout the file',
      'flow.prose:17:31: unknown simulated outcome "nope": expected one of ok, ok:<text>, rate_limit, timeout, crash, exit:<n>, malformed, no_changes, slow:<duration>',
    ]);
    const result = checkFlow(source, 'flow.prose');
    expect(result.ok).toBe(false);
    expect(result.plan).toBeNull();
    expect(result.diagnostics.every((d) => d.severity === 'error' && d.file === 'flow.prose')).toBe(true);
  });

  it('an empty file is a valid flow with nothing to run', () => {
    expect(checkFlow('# nothing yet\n', 'flow.prose')).toMatchObject({ ok: true, diagnostics: [], plan: { sessions: [], channels: [] } });
  });
});

describe('checkFlowFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-flow-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads and checks a file, naming it in diagnostics', async () => {
    const path = join(dir, 'bad.prose');
    writeFileSync(path, 'session "a" (retry: -1)\n');
    const result = await checkFlowFile(path);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([`${path}:1:21: retry must be a whole number of at least 0, got -1`]);
  });

  it('a missing file gives one diagnostic at 1:1', async () => {
    const path = join(dir, 'missing.prose');
    const result = await checkFlowFile(path);
    expect(result).toEqual({
      ok: false,
      plan: null,
      errorCount: 1,
      diagnostics: [{ file: path, line: 1, column: 1, message: 'cannot read the flow: no such file', severity: 'error' }],
    });
  });
});

describe('the example flows', () => {
  const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
  const files = readdirSync(examples)
    .filter((f) => f.endsWith('.prose'))
    .sort();

  it('are the six that ship', () => {
    expect(files).toEqual([
      '01-happy-path.prose',
      '02-rate-limited-api.prose',
      '03-flaky-tests.prose',
      '04-parallel-fan-out.prose',
      '05-try-catch-finally.prose',
      '06-agent-fixes-a-test.prose',
    ]);
  });

  it.each(files)('%s checks clean and runs offline: a declared fake agent, or a command inside its own template repository', async (file) => {
    const result = await checkFlowFile(join(examples, file));
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(result.ok).toBe(true);
    const plan = result.plan;
    if (!plan) throw new Error('expected a plan');
    expect(plan.sessions.length).toBeGreaterThan(0);
    for (const session of plan.sessions) {
      expect(session.agent).not.toBeNull();
      const agent = plan.agents.get(session.agent ?? '');
      if (agent?.runtime === 'command') expect(plan.repo?.kind).toBe('template');
      else expect(agent?.runtime).toBe('fake');
    }
  });

  it('02 and 03 carry the retry policies their comments describe', async () => {
    const rateLimited = (await checkFlowFile(join(examples, '02-rate-limited-api.prose'))).plan;
    expect(rateLimited?.sessions.map((s) => [s.retry, s.simulate])).toEqual([
      [{ retries: 4, backoff: null, baseDelayMs: null, maxDelayMs: null }, 'rate_limit, rate_limit, rate_limit, ok'],
      [{ retries: 5, backoff: 'exponential', baseDelayMs: 2_000, maxDelayMs: 10_000 }, 'timeout, timeout, timeout, timeout, ok'],
    ]);
    const flaky = (await checkFlowFile(join(examples, '03-flaky-tests.prose'))).plan;
    expect(flaky?.sessions[0]?.retry).toEqual({ retries: 3, backoff: null, baseDelayMs: null, maxDelayMs: null });
  });
});
