import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { formatDiagnostic, type Statement } from './ast.js';
import { parseFlow } from './parser.js';
import { ParseError } from './token-cursor.js';
import { describeTemplate } from './template.js';

/** Parses a flow that must be free of problems. */
function parse(source: string) {
  const result = parseFlow(source, 'f.prose');
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(result.syntaxOk).toBe(true);
  return result.program;
}

function body(source: string): readonly Statement[] {
  return parse(source).body;
}

function problems(source: string): string[] {
  return parseFlow(source, 'f.prose').diagnostics.map(formatDiagnostic);
}

const text = (value: unknown): string => describeTemplate(value as Parameters<typeof describeTemplate>[0]);

describe('parser: agents', () => {
  it('reads an agent block with every kind of value', () => {
    const program = parse(
      [
        'agent coder:',
        '  runtime: "command"',
        '  command: "printf \'%s\' {prompt}"',
        '  timeout: 10m',
        '  retry: 2',
        '  backoff: [1s, "5s"]',
        '  shell: true',
        '  env: ["A=1", "B=two"]',
      ].join('\n'),
    );
    expect(program.body).toEqual([]);
    expect(program.agents).toHaveLength(1);
    const agent = program.agents[0];
    expect(agent).toMatchObject({ kind: 'agent', name: 'coder', pos: { line: 1, column: 1 } });
    expect(agent?.properties.map((p) => [p.name, p.value.kind, p.pos.line, p.pos.column])).toEqual([
      ['runtime', 'string', 2, 3],
      ['command', 'string', 3, 3],
      ['timeout', 'word', 4, 3],
      ['retry', 'number', 5, 3],
      ['backoff', 'list', 6, 3],
      ['shell', 'word', 7, 3],
      ['env', 'list', 8, 3],
    ]);
    expect(agent?.properties[4]?.value).toMatchObject({ kind: 'list', items: [{ kind: 'word', value: '1s' }, { kind: 'string' }] });
  });
});

describe('parser: sessions', () => {
  it('session "prompt"', () => {
    const [session] = body('session "Write the plan"');
    expect(session).toMatchObject({ kind: 'session', agent: null, properties: [], ordinal: -1, pos: { line: 1, column: 1 } });
    expect(session?.kind === 'session' && text(session.prompt)).toBe('Write the plan');
  });

  it('session: agent with a block of properties; prompt: and agent: are folded into the statement', () => {
    const [session] = body('session: coder\n  prompt: "Implement {plan}"\n  context: plan\n  timeout: "30s"');
    expect(session).toMatchObject({ kind: 'session', agent: 'coder', agentPos: { line: 1, column: 10 } });
    if (session?.kind !== 'session') return;
    expect(text(session.prompt)).toBe('Implement {plan}');
    expect(session.properties.map((p) => p.name)).toEqual(['context', 'timeout']);
  });

  it('inline properties and an indented block on one session, inline first', () => {
    const [session] = body('session "Call" (retry: 3, backoff: "exponential", delay: "30s", max-delay: "300s")\n  simulate: "rate_limit, ok"\n  agent: coder');
    if (session?.kind !== 'session') throw new Error('expected a session');
    expect(session.properties.map((p) => [p.name, p.value.kind])).toEqual([
      ['retry', 'number'],
      ['backoff', 'string'],
      ['delay', 'string'],
      ['max-delay', 'string'],
      ['simulate', 'string'],
    ]);
    expect(session.agent).toBe('coder');
  });

  it('backoff as a word, a string and lists of words or strings', () => {
    const statements = body('session "a" (backoff: exponential)\nsession "b" (backoff: [1s, 5s, 30s])\nsession "c" (backoff: ["1s", "5s"])');
    const values = statements.map((s) => (s.kind === 'session' ? s.properties[0]?.value.kind : null));
    expect(values).toEqual(['word', 'list', 'list']);
  });
});

describe('parser: bindings', () => {
  it('let, const and assignment of sessions and strings', () => {
    const statements = body('let plan = session "Plan"\nconst goal = "Ship it"\nplan = session: coder\n  prompt: "Again"');
    expect(statements).toMatchObject([
      { kind: 'bind', binding: 'let', name: 'plan', namePos: { line: 1, column: 5 }, value: { kind: 'session' } },
      { kind: 'bind', binding: 'const', name: 'goal', value: { kind: 'string' } },
      { kind: 'bind', binding: 'assign', name: 'plan', pos: { line: 3, column: 1 }, value: { kind: 'session', agent: 'coder' } },
    ]);
  });

  it('let x = parallel binds the parallel result', () => {
    const [bind] = body('let results = parallel (on-fail: "continue"):\n  a = session "A"\n  session "B"');
    expect(bind).toMatchObject({
      kind: 'bind',
      name: 'results',
      value: {
        kind: 'parallel',
        onFail: 'continue',
        branches: [
          { name: 'a', body: { kind: 'session' } },
          { name: null, body: { kind: 'session' } },
        ],
      },
    });
  });
});

describe('parser: try / catch / finally / throw', () => {
  it('catch:, catch err:, catch as err: and finally:', () => {
    const statements = body(
      [
        'try:',
        '  session "A"',
        'catch:',
        '  session "B"',
        'try:',
        '  session "C"',
        'catch err:',
        '  throw',
        'finally:',
        '  session "D"',
        'try:',
        '  session "E"',
        'catch as e:',
        '  throw "failed: {e.message}"',
        'try:',
        '  session "F"',
        'finally:',
        '  session "G"',
      ].join('\n'),
    );
    expect(statements).toMatchObject([
      { kind: 'try', catchClause: { errorName: null, pos: { line: 3, column: 1 } }, finallyBody: null },
      { kind: 'try', catchClause: { errorName: 'err', body: [{ kind: 'throw', message: null }] }, finallyBody: [{ kind: 'session' }] },
      { kind: 'try', catchClause: { errorName: 'e', body: [{ kind: 'throw' }] } },
      { kind: 'try', catchClause: null, finallyBody: [{ kind: 'session' }] },
    ]);
    const thrown = statements[2]?.kind === 'try' ? statements[2].catchClause?.body[0] : undefined;
    expect(thrown?.kind === 'throw' && text(thrown.message)).toBe('failed: {e.message}');
  });

  it('nested try inside try', () => {
    const [outer] = body('try:\n  try:\n    session "Inner"\n  catch:\n    session "Handle inner"\n  session "Continue"\ncatch:\n  session "Outer"');
    expect(outer).toMatchObject({
      kind: 'try',
      body: [{ kind: 'try', catchClause: { body: [{ kind: 'session' }] } }, { kind: 'session' }],
      catchClause: { body: [{ kind: 'session' }] },
    });
  });
});

describe('parser: parallel, repeat, do', () => {
  it('parallel: defaults to fail-fast; on-fail with or without quotes', () => {
    const statements = body('parallel:\n  session "A"\nparallel (on-fail: continue):\n  session "B"\nparallel (on-fail: "ignore"):\n  session "C"');
    expect(statements.map((s) => (s.kind === 'parallel' ? s.onFail : null))).toEqual(['fail-fast', 'continue', 'ignore']);
    expect(statements[1]).toMatchObject({ properties: [{ name: 'on-fail', value: { kind: 'word', value: 'continue' } }] });
  });

  it('each line under parallel is a branch; do: groups several statements into one', () => {
    const [parallel] = body(
      [
        'parallel:',
        '  a = session "A"',
        '  do:',
        '    session "B1"',
        '    session "B2"',
        '  try:',
        '    session "C"',
        '  catch:',
        '    session "C failed"',
        '  let d = session "D"',
      ].join('\n'),
    );
    expect(parallel).toMatchObject({
      kind: 'parallel',
      branches: [
        { name: 'a', pos: { line: 2, column: 3 }, body: { kind: 'session' } },
        { name: null, pos: { line: 3, column: 3 }, body: { kind: 'do', body: [{ kind: 'session' }, { kind: 'session' }] } },
        { name: null, body: { kind: 'try', catchClause: { errorName: null } } },
        { name: null, body: { kind: 'bind', binding: 'let', name: 'd' } },
      ],
    });
  });

  it('repeat N: and repeat N as i:', () => {
    expect(body('repeat 3:\n  session "x"\nrepeat 2 as i:\n  session "Iteration {i}"')).toMatchObject([
      { kind: 'repeat', count: 3, indexName: null, body: [{ kind: 'session' }] },
      { kind: 'repeat', count: 2, indexName: 'i', body: [{ kind: 'session' }] },
    ]);
  });

  it('do: at the top level', () => {
    expect(body('do:\n  session "A"\n  session "B"')).toMatchObject([{ kind: 'do', body: [{ kind: 'session' }, { kind: 'session' }] }]);
  });
});

describe('parser: errors and recovery', () => {
  it('catch and finally without try', () => {
    expect(problems('session "a"\ncatch:\n  session "b"\nfinally:\n  session "c"')).toEqual([
      'f.prose:2:1: catch without a matching try: a catch block must directly follow the body of a try',
    ]);
    expect(problems('finally:\n  session "c"')).toEqual([
      'f.prose:1:1: finally without a matching try: a finally block must directly follow the body of a try or its catch',
    ]);
  });

  it('a broken try header does not make its catch an orphan', () => {
    expect(problems('try: session "x"\n  session "a"\ncatch:\n  session "b"')).toEqual([
      'f.prose:1:6: expected the end of the line after "try:", got "session"',
    ]);
  });

  it('an empty block, a try with neither catch nor finally', () => {
    expect(problems('try:\ncatch:\n  session "x"')).toEqual(['f.prose:1:1: empty block: "try:" needs at least one indented line below it']);
    expect(problems('try:\n  session "x"')).toEqual(['f.prose:1:1: try needs a catch or a finally block after its body']);
    expect(problems('parallel:\n# only a comment\nsession "x"')).toEqual(['f.prose:1:1: empty block: "parallel:" needs at least one indented line below it']);
  });

  it('unexpected indentation, statements it does not know, keywords as names', () => {
    expect(problems('throw "x"\n  session "b"')).toEqual(['f.prose:2:3: unexpected indentation: the line above opens no block']);
    expect(problems('launch "rocket"')).toEqual(['f.prose:1:1: expected a statement (session, let, const, try, throw, parallel, repeat, do), got "launch"']);
    expect(problems('retry: 3')).toEqual(['f.prose:1:1: "retry:" looks like a property: indent it under the agent or session it belongs to']);
    expect(problems('let session = "x"')).toEqual(['f.prose:1:5: "session" is a keyword and cannot be used as a name']);
  });

  it('a session block holds only properties', () => {
    expect(problems('session "a"\n  timeout: 1s\n  session "b"')).toEqual([
      'f.prose:3:3: expected a property (name: value) in the block of a session, got "session"',
    ]);
  });

  it('throw takes a message or nothing; repeat needs a number', () => {
    expect(problems('throw err')).toEqual([
      'f.prose:1:7: throw takes no name: write throw alone to rethrow the error being handled, or throw "message" to raise a new one',
    ]);
    expect(problems('repeat many:\n  session "x"')).toEqual(['f.prose:1:8: repeat count must be a positive whole number, got "many"']);
    expect(problems('repeat 0:\n  session "x"\nrepeat 1.5:\n  session "y"')).toEqual([
      'f.prose:1:8: repeat count must be a positive whole number, got 0',
      'f.prose:3:8: repeat count must be a positive whole number, got 1.5',
    ]);
  });

  it('properties: missing colon, bad list, unclosed parenthesis', () => {
    expect(problems('session "a" (retry 3)')).toEqual(['f.prose:1:20: expected ":" after the property name "retry", got "3"']);
    expect(problems('session "a" (backoff: [1s 2s])')).toEqual(['f.prose:1:27: expected "," or "]" in the list, got "2s"']);
    expect(problems('session "a" (retry: 3')).toEqual(['f.prose:1:22: expected "," or ")" after the property value, got the end of the line']);
  });

  it('a session with neither prompt nor agent; prompt given twice', () => {
    expect(problems('session\n  timeout: 1s')).toEqual(['f.prose:1:1: session needs a prompt: write session "..." or name an agent with session: name']);
    expect(problems('session "a"\n  prompt: "b"')).toEqual(['f.prose:2:3: the session already has a prompt: give it once']);
    expect(problems('session: x\n  prompt: plan')).toEqual(['f.prose:2:11: prompt must be a "string", got plan']);
  });

  it('recovers after each broken line and reports every problem of the file', () => {
    const source = [
      'session "ok"',
      'let = session "a"', // 2: no name
      'try:',
      '  session "b" extra', // 4: trailing token
      '  session "c" (retry 1)', // 5: missing colon
      'catch oops here:', // 6: broken catch header; its block is skipped
      '  session "d" ; ', // (skipped)
      'parallel (on-fail continue):', // 8: missing colon; its branches are skipped
      '  a = session "A"',
      'session "last"',
    ].join('\n');
    expect(problems(source)).toEqual([
      'f.prose:2:5: expected a name after "let", got "="',
      'f.prose:4:15: expected the end of the line after the session, got "extra"',
      'f.prose:5:22: expected ":" after the property name "retry", got "1"',
      'f.prose:6:12: expected ":" after "catch oops", got "here"',
      'f.prose:7:15: unexpected character ";"',
      'f.prose:8:19: expected ":" after the property name "on-fail", got "continue"',
    ]);
    const { program } = parseFlow(source, 'f.prose');
    expect(program.body.map((s) => s.kind)).toEqual(['session', 'session']);
  });

  it('remembers the names of broken declarations so they are not reported as undefined later', () => {
    const { recovered } = parseFlow('let plan = session "a" "b"\nagent coder\nresult = 3', 'f.prose');
    expect([...recovered.channels]).toEqual(['plan', 'result']);
    expect([...recovered.agents]).toEqual(['coder']);
  });
});

describe('parser: the error it abandons a line with', () => {
  it('is an invalid-flow error of the taxonomy that keeps where it happened', () => {
    const error = new ParseError("expected ':' after try", { line: 4, column: 9 }, false);
    expect(error).toBeInstanceOf(HivewatchError);
    expect(error).toMatchObject({ code: 'USER_INVALID_FLOW', category: 'user', name: 'ParseError', silent: false });
    expect(error.pos).toEqual({ line: 4, column: 9 });
    expect(error.context).toEqual({ line: 4, column: 9 });
  });
});
