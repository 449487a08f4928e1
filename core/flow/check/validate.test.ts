import { describe, expect, it } from 'vitest';
import { NO_RETRY } from '../../base/errors/retry.js';
import { formatDiagnostic, type SessionStmt, type Statement } from '../syntax/ast.js';
import { checkFlow } from './check.js';
import type { FlowPlan } from '../plan/plan.js';

function plan(source: string): FlowPlan {
  const result = checkFlow(source, 'f.prose');
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(result.ok).toBe(true);
  if (!result.plan) throw new Error('expected a plan');
  return result.plan;
}

function problems(source: string): string[] {
  return checkFlow(source, 'f.prose').diagnostics.map(formatDiagnostic);
}

/** Every session statement of a program, in pre-order. */
function sessionStatements(statements: readonly Statement[]): SessionStmt[] {
  const out: SessionStmt[] = [];
  const visit = (s: Statement): void => {
    switch (s.kind) {
      case 'session':
        out.push(s);
        return;
      case 'bind':
        if (s.value.kind !== 'string') visit(s.value);
        return;
      case 'try':
        s.body.forEach(visit);
        s.catchClause?.body.forEach(visit);
        s.finallyBody?.forEach(visit);
        return;
      case 'parallel':
        s.branches.forEach((b) => visit(b.body));
        return;
      case 'repeat':
      case 'do':
        s.body.forEach(visit);
        return;
      case 'throw':
        return;
    }
  };
  statements.forEach(visit);
  return out;
}

describe('ordinals', () => {
  it('numbers sessions in pre-order, parallel branches in order (branch order first)', () => {
    const result = plan(
      [
        'session "s0"',
        'parallel:',
        '  a = session "s1"',
        '  do:',
        '    session "s2"',
        '    parallel:',
        '      session "s3"',
        '      session "s4"',
        '    session "s5"',
        '  try:',
        '    session "s6"',
        '  catch:',
        '    session "s7"',
        '  finally:',
        '    session "s8"',
        'repeat 2:',
        '  session "s9"',
        'let x = session "s10"',
      ].join('\n'),
    );
    expect(result.sessions.map((s) => [s.ordinal, s.name])).toEqual(Array.from({ length: 11 }, (_, i) => [i, `s${i}`]));
    expect(sessionStatements(result.program.body).map((s) => s.ordinal)).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(result.sessions[5]?.pos).toEqual({ line: 9, column: 5 });
  });
});

describe('the plan', () => {
  it('builds agent specs with defaults and every property', () => {
    const result = plan(
      [
        'agent coder:',
        '  command: "printf \'%s\' {prompt}"',
        '  timeout: "10m"',
        '  model: opus',
        '  cwd: "/srv/app"',
        '  shell: false',
        '  env: ["MODE=ci", "EMPTY="]',
        '  retry: 2',
        '  backoff: fixed',
        '  delay: 1s',
        '  workspace: "worktree"',
        '  setup: "npm ci"',
        'agent bot:',
        '  runtime: fake',
      ].join('\n'),
    );
    expect(result.agents.get('coder')).toMatchObject({
      name: 'coder',
      runtime: 'command',
      command: {
        parts: [
          { kind: 'text', text: "printf '%s' " },
          { kind: 'ref', path: ['prompt'] },
        ],
      },
      shell: false,
      timeoutMs: 600_000,
      retry: { retries: 2, backoff: 'fixed', baseDelayMs: 1_000, maxDelayMs: null },
      model: 'opus',
      cwd: '/srv/app',
      env: { MODE: 'ci', EMPTY: '' },
      workspace: 'worktree',
      setup: 'npm ci',
      pos: { line: 1, column: 1 },
    });
    expect(result.agents.get('bot')).toEqual({
      name: 'bot',
      runtime: 'fake',
      command: null,
      shell: false,
      timeoutMs: null,
      retry: null,
      model: null,
      cwd: null,
      env: {},
      secrets: [],
      workspace: null,
      setup: null,
      pos: { line: 13, column: 1 },
    });
  });

  it('resolves each session: own retry policy, else its agent policy, else NO_RETRY', () => {
    const result = plan(
      [
        'agent patient:',
        '  runtime: fake',
        '  retry: 5',
        'session "own" (retry: 3, backoff: "exponential", delay: "30s", max-delay: "300s")',
        'session "only backoff" (backoff: [1s, 5s])',
        'session: patient',
        '  prompt: "inherits"',
        'session "overrides" (retry: 1, agent: patient)',
        'session "none"',
        '  timeout: 45s',
        '  simulate: "rate_limit, ok"',
      ].join('\n'),
    );
    expect(result.sessions.map((s) => [s.name, s.agent, s.retry, s.retryExplicit])).toEqual([
      ['own', null, { retries: 3, backoff: 'exponential', baseDelayMs: 30_000, maxDelayMs: 300_000 }, true],
      ['only backoff', null, { retries: 0, backoff: [1_000, 5_000], baseDelayMs: null, maxDelayMs: null }, true],
      ['inherits', 'patient', { retries: 5, backoff: null, baseDelayMs: null, maxDelayMs: null }, false],
      ['overrides', 'patient', { retries: 1, backoff: null, baseDelayMs: null, maxDelayMs: null }, true],
      ['none', null, NO_RETRY, false],
    ]);
    expect(result.sessions[4]).toMatchObject({ timeoutMs: 45_000, simulate: 'rate_limit, ok', context: [] });
  });

  it('names a session by its prompt on one line, shortened to 60 characters, else by its ordinal', () => {
    const long = 'x'.repeat(80);
    const result = plan(`session "${long}"\nsession: fake\nsession "two\\nlines  {plan}"\nlet plan = "p"`);
    expect(result.sessions.map((s) => s.name)).toEqual([`${'x'.repeat(59)}…`, 'session #1', 'two lines {plan}']);
    expect(result.sessions[0]?.name).toHaveLength(60);
  });

  it('lists channels: let/const/parallel results as global, named branches as branch-local', () => {
    const result = plan(
      [
        'const goal = "ship"',
        'let results = parallel (on-fail: ignore):',
        '  a = session "A"',
        '  b = session "B"',
        'let notes = session "N {goal} {results} {a}"',
        '  context: [goal, a]',
        'parallel:',
        '  a = session "A again"',
      ].join('\n'),
    );
    expect(result.channels).toEqual([
      { name: 'goal', constant: true, scope: 'global' },
      { name: 'results', constant: false, scope: 'global' },
      { name: 'a', constant: false, scope: 'branch' },
      { name: 'b', constant: false, scope: 'branch' },
      { name: 'notes', constant: false, scope: 'global' },
    ]);
    expect(result.sessions[2]?.context).toEqual(['goal', 'a']);
  });

  it('keeps invalid retry values as written, for the engine to re-validate', () => {
    const result = checkFlow('session "a" (retry: -1, backoff: "sometimes", delay: soon)', 'f.prose');
    expect(result.ok).toBe(false);
    expect(result.plan?.sessions[0]?.retry).toEqual({ retries: -1, backoff: 'sometimes', baseDelayMs: Number.NaN, maxDelayMs: null });
  });

  it('has a plan despite validation errors, none after a syntax error', () => {
    expect(checkFlow('session: ghost', 'f.prose').plan?.sessions).toHaveLength(1);
    expect(checkFlow('session "a', 'f.prose').plan).toBeNull();
  });

  it('accepts sessions without an agent: the run picks a default agent', () => {
    expect(plan('session "no agent here"').sessions[0]?.agent).toBeNull();
  });
});

describe('names and scopes', () => {
  it('sees channels declared anywhere, the caught error in its catch, the repeat index in its body', () => {
    plan(
      [
        'session "uses {later}"',
        'try:',
        '  session "x"',
        'catch err:',
        '  session "{err} {err.message} {err.code} {err.category} {err.origin} {err.recoverable}"',
        '  parallel:',
        '    throw',
        'repeat 2 as i:',
        '  session "round {i}"',
        'let later = "v"',
      ].join('\n'),
    );
  });

  it('reports names out of scope and fields a caught error or an index does not have', () => {
    expect(
      problems(
        [
          'try:',
          '  session "x"',
          'catch err:',
          '  session "{err.stack}"',
          'session "{err.message}"',
          'repeat 2 as i:',
          '  session "{i.value}"',
          'session "{i}"',
          'session "x"',
          '  context: [missing]',
        ].join('\n'),
      ),
    ).toEqual([
      'f.prose:4:12: the caught error "err" has no field "stack": use one of message, code, category, origin, recoverable',
      'f.prose:5:10: undefined name "err" in {err.message}: no variable, caught error or repeat index of that name is in scope here',
      'f.prose:7:12: "i" is the repeat index, a number, and has no field "value"',
      'f.prose:8:10: undefined name "i" in {i}: no variable, caught error or repeat index of that name is in scope here',
      'f.prose:10:13: unknown variable "missing" in context: name a variable declared with let, const or a parallel branch',
    ]);
  });

  it('checks names in throw messages and string bindings', () => {
    expect(problems('let a = "{b}"\ntry:\n  session "x"\ncatch:\n  throw "lost {why}"')).toEqual([
      'f.prose:1:10: undefined name "b" in {b}: no variable, caught error or repeat index of that name is in scope here',
      'f.prose:5:15: undefined name "why" in {why}: no variable, caught error or repeat index of that name is in scope here',
    ]);
  });

  it('reports conflicting declarations', () => {
    expect(
      problems(
        [
          'const c = "one"',
          'c = session "two"',
          'let v = "x"',
          'let v = "y"',
          'parallel:',
          '  v = session "branch"',
          '  d = session "d1"',
          '  d = session "d2"',
          'd = session "global d"',
          'repeat 2:',
          '  const k = "once"',
        ].join('\n'),
      ),
    ).toEqual([
      'f.prose:2:1: cannot assign to const "c": it is declared at 1:7',
      'f.prose:4:5: "v" is already declared at 3:5: assign it with v = ... instead of declaring it again',
      'f.prose:6:3: parallel branch "v" reuses the name of the variable declared at 3:5: give the branch a name of its own',
      'f.prose:8:3: duplicate branch name "d" in this parallel: the first is at 7:3',
      'f.prose:9:1: "d" names the result of the parallel branch at 7:3: give the variable a name of its own',
      'f.prose:11:9: const "k" is inside a repeat, so it would be assigned on every iteration: use let',
    ]);
  });
});

describe('properties', () => {
  it('reports wrong value types at the value', () => {
    expect(
      problems(
        [
          'agent a:',
          '  runtime: fake',
          '  shell: yes',
          '  env: ["NOEQUALS", 3]',
          '  command: run',
          'session "s" (retry: "3", timeout: 30, context: "plan", simulate: 3)',
          'parallel (on-fail: sometimes, limit: 2):',
          '  session "p"',
        ].join('\n'),
      ),
    ).toEqual([
      'f.prose:3:10: shell must be true or false, got yes',
      'f.prose:4:9: env entries must look like "KEY=VALUE", got "NOEQUALS"',
      'f.prose:4:21: env must be a list of "KEY=VALUE" strings, got 3',
      'f.prose:5:12: command must be a "string", got run',
      'f.prose:6:21: retry must be a whole number such as 3, got "3"',
      'f.prose:6:35: timeout must be a duration such as "30s", got 30',
      'f.prose:6:48: context must be a variable name or a [list] of names, got "plan"',
      'f.prose:6:66: simulate must be a "string" of outcomes such as "rate_limit, ok", got 3',
      'f.prose:7:20: on-fail must be one of fail-fast, continue, ignore, got sometimes',
      'f.prose:7:31: unknown property "limit" for parallel: expected one of on-fail',
    ]);
  });

  it('reads secrets: as env: names declared secret, and reports each bad one at its own position', () => {
    const source = (secrets: string): string =>
      ['agent a:', '  runtime: fake', '  env: ["SALT=pepper", "MODE=ci"]', `  secrets: ${secrets}`, 'session: a', '  prompt: "x"'].join('\n');
    expect(plan(source('[SALT, "MODE"]')).agents.get('a')?.secrets).toEqual(['SALT', 'MODE']);
    expect(plan(source('SALT')).agents.get('a')?.secrets).toEqual(['SALT']);
    expect(problems(source('[SALT, PEPPER, "no such", 3, SALT, "{x}"]'))).toEqual([
      'f.prose:4:19: secrets names PEPPER, which this agent\'s env: does not set: add "PEPPER=…" to env:, or remove it here',
      'f.prose:4:27: secrets names variables of env:, such as API_BASE; "no such" is not a variable name',
      'f.prose:4:38: secrets must be a [list] of env: variable names, got 3',
      'f.prose:4:41: secrets already names SALT at 4:13',
      'f.prose:4:48: secrets cannot use placeholders such as {x}: it is read before the run starts',
    ]);
    expect(problems(['agent a:', '  runtime: fake', '  secrets: [TOKEN]'].join('\n'))).toEqual([
      'f.prose:3:13: secrets names TOKEN, which this agent\'s env: does not set: add "TOKEN=…" to env:, or remove it here',
    ]);
  });

  it('reports durations, backoff lists, delays and placeholders where they cannot be filled', () => {
    expect(
      problems(
        [
          'session "a" (backoff: [1s, 5, "later"], delay: "10s", max-delay: "5s")',
          'session "b" (backoff: [], retry: 101)',
          'session "c" (timeout: "{plan}")',
          'let plan = "p"',
        ].join('\n'),
      ),
    ).toEqual([
      'f.prose:1:28: backoff list items must be durations such as 1s, got 5',
      'f.prose:1:31: invalid duration "later": expected a number with a unit (ms, s, m, h), e.g. "30s"',
      'f.prose:1:66: max-delay (5000ms) must not be less than delay (10000ms)',
      'f.prose:2:23: backoff list must name at least one delay',
      'f.prose:2:34: retry must be at most 100, got 101',
      'f.prose:3:24: timeout cannot use placeholders such as {plan}: it is read before the run starts',
    ]);
  });

  it('reports duplicate properties, a duplicate agent, an unknown runtime and a command agent without a command', () => {
    expect(problems(['agent a:', '  runtime: "docker"', 'agent a:', '  timeout: 1m', 'session "x" (retry: 1)', '  retry: 2'].join('\n'))).toEqual([
      'f.prose:2:12: unknown runtime "docker": expected one of command, fake, claude-code, codex-cli, noop',
      'f.prose:3:1: agent "a" is already declared at 1:1',
      'f.prose:3:1: agent "a" uses the command runtime but has no command: add command: "..." or set runtime to one of fake, claude-code, codex-cli, noop',
      'f.prose:6:3: duplicate property "retry": it is already set at 5:14',
    ]);
  });

  it('accepts the built-in agents without declaring them', () => {
    plan('session: fake\nsession: noop\nsession "x" (agent: claude-code)\nsession "y"\n  agent: "codex-cli"');
  });
});
